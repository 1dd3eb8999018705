// A third-party TUIO client (npm's tuio-client, over osc-js WebSockets) watching a gpuvis
// WebSocket server for SECONDS, then printing what it saw as one JSON object: every add, the
// number of updates, every removal, the objects' last state, and every position each symbol was
// updated to (`paths`, by session). gpuvis's tests run it.
//
//   node tuio_client_check.mjs 1.1|2 PORT SECONDS
import OSC from "osc-js";
import { Tuio11Client, Tuio20Client, TuioReceiver } from "tuio-client/dist/tuio-client.es.js";  // the package's ES build (its "main" is CommonJS in a module package)

const [version, port, seconds] = process.argv.slice(2);

class WebsocketTuioReceiver extends TuioReceiver {
  constructor(host, port) {
    super();
    this.osc = new OSC({ plugin: new OSC.WebsocketClientPlugin({ host, port: Number(port) }) });
    this.osc.on("*", (message) => this.onOscMessage(message));
  }
  connect() {
    this.osc.open();
    this.isConnected = true;
  }
  disconnect() {
    this.osc.close();
    this.isConnected = false;
  }
}

const seen = { version, adds: [], updates: 0, removes: [], last: {}, paths: {}, refreshes: 0 };
const record = (session, id, p) => (seen.paths[session] ??= []).push([id, p.x, p.y]);
const receiver = new WebsocketTuioReceiver("127.0.0.1", port);
const where = (p) => ({ x: p.x, y: p.y });

if (version === "2") {
  const client = new Tuio20Client(receiver);
  const describe = (o) => ({
    session: o.sessionId ?? o._sessionId,
    token: o._token ? { id: o._token.cId, ...where(o._token.position), angle: o._token.angle } : null,
    pointer: o._pointer ? where(o._pointer.position) : null,
    bounds: o._bounds ? where(o._bounds.position) : null,
    symbol: o._symbol ? { type: o._symbol.group ?? o._symbol._group, data: o._symbol.data ?? o._symbol._data } : null,
  });
  client.addTuioListener({
    tuioAdd: (o) => seen.adds.push(describe(o)),
    tuioUpdate: (o) => {
      seen.updates += 1;
      seen.last[o._sessionId] = describe(o);
      if (o._token) record(o._sessionId, o._token.cId, o._token.position);
    },
    tuioRemove: (o) => seen.removes.push(o._sessionId),
    tuioRefresh: () => (seen.refreshes += 1),
  });
  client.connect();
} else {
  const client = new Tuio11Client(receiver);
  const object = (o) => ({ session: o.sessionId, id: o.symbolId, ...where(o.position), angle: o.angle });
  client.addTuioListener({
    addTuioObject: (o) => seen.adds.push({ kind: "object", ...object(o) }),
    updateTuioObject: (o) => {
      seen.updates += 1;
      seen.last[o.sessionId] = object(o);
      record(o.sessionId, o.symbolId, o.position);
    },
    removeTuioObject: (o) => seen.removes.push(o.sessionId),
    addTuioCursor: (c) => seen.adds.push({ kind: "cursor", session: c.sessionId, ...where(c.position) }),
    updateTuioCursor: () => (seen.updates += 1),
    removeTuioCursor: (c) => seen.removes.push(c.sessionId),
    addTuioBlob: (b) => seen.adds.push({ kind: "blob", session: b.sessionId }),
    updateTuioBlob: () => (seen.updates += 1),
    removeTuioBlob: (b) => seen.removes.push(b.sessionId),
    refresh: () => (seen.refreshes += 1),
  });
  client.connect();
}

setTimeout(() => {
  console.log(JSON.stringify(seen));
  process.exit(0);
}, Number(seconds) * 1000);
