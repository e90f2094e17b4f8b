package io.coordsim.oracle;

import java.lang.reflect.Field;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * Kafka draws the member ids it generates (a classic member's
 * ClassicGroup.generateMemberId, a classic member joining a consumer group's
 * Uuid.randomUuid) from java.util.UUID.randomUUID, whose SecureRandom lives
 * in UUID.Holder. The ids order members in Kafka's hash maps, and so decide
 * how its assignors deal partitions; drawn at random, the same sequence
 * could end differently from run to run. Each oracle reset replaces that
 * generator with a SHA1PRNG seeded the same way, so a sequence's ids, and
 * every answer, repeat. The ids stay random-looking UUIDs, as Kafka's are.
 */
final class OracleUuids {
    private OracleUuids() {
    }

    static void reseed() {
        try {
            SecureRandom rng = SecureRandom.getInstance("SHA1PRNG");
            rng.setSeed(0x636f6f726473696dL); // before any draw: deterministic
            Field unsafeField = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
            unsafeField.setAccessible(true);
            sun.misc.Unsafe unsafe = (sun.misc.Unsafe) unsafeField.get(null);
            Field holder = Class.forName("java.util.UUID$Holder").getDeclaredField("numberGenerator");
            unsafe.putObject(unsafe.staticFieldBase(holder), unsafe.staticFieldOffset(holder), rng);
        } catch (ReflectiveOperationException | NoSuchAlgorithmException e) {
            throw new IllegalStateException("cannot make UUID.randomUUID deterministic", e);
        }
    }
}
