import RedisMock from 'ioredis-mock';
const r = new RedisMock() as any;
await r.zadd('z', 1.5, 'a', 2, 'b'); await r.hset('h', 'f', 'v');
console.log(Object.keys(r), typeof r.data, r.data && Object.getOwnPropertyNames(Object.getPrototypeOf(r.data)));
console.log(r.data.get('z'), r.data.get('h'));
