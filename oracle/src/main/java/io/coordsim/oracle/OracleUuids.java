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
 * could end differently from run to run. Each oracle reset restarts that
 * generator as a SHA1PRNG seeded the same way, so a sequence's ids, and
 * every answer, repeat. The ids stay random-looking UUIDs, as Kafka's are.
 *
 * UUID.Holder.numberGenerator is static final, which the JIT treats as a
 * constant: once UUID.randomUUID is compiled, a generator written into the
 * field later is never read. So the field is written once, before the
 * first draw, with a Resettable whose inner generator each reset replaces
 * (an instance field, read on every draw). Replacing the field itself at
 * every reset made a sequence's ids depend on what the process ran before
 * (once compiled, the old generator went on): seeds 338 and 385 ended
 * differently after an earlier seed's reduction.
 */
final class OracleUuids {
    private OracleUuids() {
    }

    private static final long SEED = 0x636f6f726473696dL;

    /** The generator UUID.randomUUID keeps; its draws come from current. */
    private static final class Resettable extends SecureRandom {
        private static final long serialVersionUID = 1L;
        private transient volatile SecureRandom current;

        @Override
        public void nextBytes(byte[] bytes) {
            current.nextBytes(bytes);
        }
    }

    private static Resettable installed;

    static synchronized void reseed() {
        try {
            SecureRandom rng = SecureRandom.getInstance("SHA1PRNG");
            rng.setSeed(SEED); // before any draw: deterministic
            if (installed != null) {
                installed.current = rng;
                return;
            }
            Resettable r = new Resettable();
            r.current = rng;
            Field unsafeField = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
            unsafeField.setAccessible(true);
            sun.misc.Unsafe unsafe = (sun.misc.Unsafe) unsafeField.get(null);
            Field holder = Class.forName("java.util.UUID$Holder").getDeclaredField("numberGenerator");
            unsafe.putObject(unsafe.staticFieldBase(holder), unsafe.staticFieldOffset(holder), r);
            installed = r;
        } catch (ReflectiveOperationException | NoSuchAlgorithmException e) {
            throw new IllegalStateException("cannot make UUID.randomUUID deterministic", e);
        }
    }
}
