// kafkajs 2.2.4 against coordsim serve: an idempotent producer, a
// transactional one (one transaction committed, one aborted), a classic
// group of three consumers reading read_committed, and the admin calls
// kafkajs users make. Prints one JSON line; exits 1 on any error.
const { Kafka, logLevel } = require('kafkajs');

const kafka = new Kafka({ clientId: 'kjs', brokers: process.env.BROKERS.split(','), logLevel: logLevel.NOTHING });
const topic = 'kafkajs-orders';
const group = 'kafkajs-group';

(async () => {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 3 }] });

  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  for (let b = 0; b < 10; b++) {
    await producer.send({ topic, messages: Array.from({ length: 10 }, (_, i) => ({ key: `k${b}-${i}`, value: `v${b}-${i}` })) });
  }

  const txProducer = kafka.producer({ transactionalId: 'kafkajs-tx', maxInFlightRequests: 1, idempotent: true });
  await txProducer.connect();
  let tx = await txProducer.transaction();
  await tx.send({ topic, messages: [{ key: 'tx', value: 'committed' }] });
  await tx.commit();
  tx = await txProducer.transaction();
  await tx.send({ topic, messages: [{ key: 'tx', value: 'aborted' }] });
  await tx.abort();

  const seen = new Map();
  const consumers = [];
  for (let c = 0; c < 3; c++) {
    const consumer = kafka.consumer({ groupId: group, sessionTimeout: 10000, heartbeatInterval: 1000 });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    consumer.run({ eachMessage: async ({ message }) => { const v = message.value.toString(); seen.set(v, (seen.get(v) || 0) + 1); } });
    consumers.push(consumer);
  }
  const start = Date.now();
  while (seen.size < 101 && Date.now() - start < 30000) await new Promise(r => setTimeout(r, 100));
  await new Promise(r => setTimeout(r, 500)); // anything late would be a duplicate or the aborted record
  const described = (await admin.describeGroups([group])).groups[0];
  for (const c of consumers) await c.disconnect();

  await admin.setOffsets({ groupId: group, topic, partitions: [{ partition: 0, offset: '1' }] });
  const afterSet = await admin.fetchOffsets({ groupId: group, topics: [topic] });
  await admin.resetOffsets({ groupId: group, topic, earliest: true });
  const listed = (await admin.listGroups()).groups.map(g => g.groupId);
  await admin.deleteGroups([group]);
  const listedAfterDelete = (await admin.listGroups()).groups.map(g => g.groupId);

  await producer.disconnect();
  await txProducer.disconnect();
  await admin.disconnect();
  console.log(JSON.stringify({
    distinct: seen.size,
    duplicates: [...seen.values()].filter(n => n > 1).length,
    abortedSeen: seen.has('aborted'),
    committedSeen: seen.has('committed'),
    state: described.state,
    members: described.members.length,
    offsetAfterSet: afterSet[0].partitions.find(p => p.partition === 0).offset,
    listed: listed.includes(group),
    listedAfterDelete: listedAfterDelete.includes(group),
  }));
})().catch(e => { console.error(e); process.exit(1); });
