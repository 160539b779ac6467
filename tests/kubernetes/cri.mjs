// A small CRI client: calls containerd's RuntimeService as the kubelet does,
// with the messages of cri.proto. One call per run, its reply as JSON on stdout:
//   node cri.mjs SOCKET METHOD [JSON]       any RuntimeService method
//   node cri.mjs SOCKET wait-exit ID SECS   ContainerStatus until it exited
//   node cri.mjs SOCKET wait-running ID SECS
//   node cri.mjs SOCKET start-all ID...     StartContainer of each at once, as a kubelet
//                                           starting many pods does
//   node cri.mjs SOCKET remove-pods ID...   StopPodSandbox then RemovePodSandbox of each
//                                           sandbox, all at once
// Exit status: 0 done, 1 the call failed or the wait timed out, 2 usage.
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';

const here = path.dirname(fileURLToPath(import.meta.url));
const [socket, method, ...args] = process.argv.slice(2);
if (!socket || !method) {
  console.error(
    'usage: node cri.mjs SOCKET METHOD [JSON] | wait-exit ID SECS | wait-running ID SECS |',
    'start-all ID... | remove-pods ID...',
  );
  process.exit(2);
}

const definition = protoLoader.loadSync(path.join(here, 'cri.proto'), {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
});
const runtime = grpc.loadPackageDefinition(definition).runtime.v1;
const client = new runtime.RuntimeService(`unix://${socket}`, grpc.credentials.createInsecure());

function call(name, request) {
  return new Promise((resolve, reject) => {
    const deadline = new Date(Date.now() + 600 * 1000);
    client[name](request, { deadline }, (err, reply) => (err ? reject(err) : resolve(reply)));
  });
}

// Polls ContainerStatus until want(state) holds or secs pass.
async function waitFor(id, secs, want) {
  const end = Date.now() + Number(secs) * 1000;
  for (;;) {
    const reply = await call('ContainerStatus', { container_id: id });
    if (want(reply.status.state)) return reply;
    if (Date.now() > end) throw new Error(`container ${id} still ${reply.status.state} after ${secs} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

try {
  let reply;
  if (method === 'wait-exit')
    reply = await waitFor(args[0], args[1], (s) => s === 'CONTAINER_EXITED' || s === 'CONTAINER_UNKNOWN');
  else if (method === 'wait-running')
    reply = await waitFor(args[0], args[1], (s) => s !== 'CONTAINER_CREATED');
  else if (method === 'start-all')
    reply = await Promise.all(args.map((id) => call('StartContainer', { container_id: id })));
  else if (method === 'remove-pods')
    reply = await Promise.all(
      args.map(async (id) => {
        await call('StopPodSandbox', { pod_sandbox_id: id });
        return call('RemovePodSandbox', { pod_sandbox_id: id });
      }),
    );
  else if (typeof client[method] !== 'function') {
    console.error(`cri: no method ${method}`);
    process.exit(2);
  } else reply = await call(method, args[0] ? JSON.parse(args[0]) : {});
  // bytes fields (ExecSync's stdout, stderr) as text; a Buffer reaches the replacer as its toJSON().
  const text = (k, v) => (v && v.type === 'Buffer' && Array.isArray(v.data) ? Buffer.from(v.data).toString() : v);
  console.log(JSON.stringify(reply, text));
  process.exit(0);
} catch (err) {
  console.error(`cri: ${method}: ${err.message}`);
  process.exit(1);
}
