// @platformatic/kafka 2.12.1 against coordsim serve: three idempotent
// producers (each gets its own producer id, so none of their batches is
// dropped as a duplicate) and a classic group of two consumers. Prints one
// JSON line; exits 1 on any error.
// Node.js 20 lacks Promise.withResolvers, which the client uses.
Promise.withResolvers ??= function () {
  let resolve, reject
  const promise = new Promise((a, b) => { resolve = a; reject = b })
  return { promise, resolve, reject }
}
const { Producer, Consumer, Admin, stringSerializers, stringDeserializers } = await import('@platformatic/kafka')

const brokers = process.env.BROKERS.split(',')
const topic = 'platformatic-orders'
try {
  const admin = new Admin({ clientId: 'pa', bootstrapBrokers: brokers })
  await admin.createTopics({ topics: [topic], partitions: 3, replicas: 1 })
  const producers = [0, 1, 2].map(i => new Producer({ clientId: `pp${i}`, bootstrapBrokers: brokers, serializers: stringSerializers, idempotent: true }))
  await Promise.all(producers.map(async (p, i) => {
    for (let b = 0; b < 10; b++) {
      await p.send({ messages: Array.from({ length: 10 }, (_, j) => ({ topic, key: `p${i}-${b}-${j}`, value: `p${i}-${b}-${j}` })) })
    }
  }))
  const seen = new Map()
  const consumers = []
  for (let c = 0; c < 2; c++) {
    const consumer = new Consumer({ groupId: 'platformatic-group', clientId: `pc${c}`, bootstrapBrokers: brokers, deserializers: stringDeserializers })
    const stream = await consumer.consume({ autocommit: true, topics: [topic], mode: 'earliest', sessionTimeout: 10000, heartbeatInterval: 500 })
    stream.on('data', m => seen.set(m.value, (seen.get(m.value) || 0) + 1))
    consumers.push(consumer)
  }
  const start = Date.now()
  while (seen.size < 300 && Date.now() - start < 30000) await new Promise(r => setTimeout(r, 100))
  await new Promise(r => setTimeout(r, 500))
  for (const c of consumers) await c.close(true)
  for (const p of producers) await p.close()
  await admin.close()
  console.log(JSON.stringify({ distinct: seen.size, duplicates: [...seen.values()].filter(n => n > 1).length }))
} catch (e) {
  console.error(e)
  process.exit(1)
}
