import autocannon from 'autocannon';
const r = await autocannon({ url: process.argv[2], method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }), connections: 50, duration: Number(process.argv[3] ?? 8) });
console.log(r.requests.average, 'req/s p50', r.latency.p50, 'p99', r.latency.p99, 'non2xx', r.non2xx, 'errors', r.errors);
