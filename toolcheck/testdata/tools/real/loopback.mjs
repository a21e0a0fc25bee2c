// loopback.mjs READY-FILE
//
// Started by capture-npm.sh (CAPTURE_LOOPBACK=1) inside the capture's own
// network namespace, where only the loopback interface is up. It stands in
// for "the network" without reaching it:
//
// - DNS on 127.0.0.1:53 (UDP and TCP): every A query is answered with
//   127.0.0.1, every other query with an empty answer, so a host name
//   resolves instead of failing with EAI_AGAIN;
// - HTTP on port 80 of 127.0.0.1 and ::1 (capture-npm.sh points dummy
//   http URLs there in this mode): every request is answered 401 with a
//   small JSON error body.
//
// Every other port refuses (ECONNREFUSED): 443 (nothing speaks TLS, so an
// HTTPS request fails at once) and 9, where dummy database, Redis and
// MongoDB URLs point. No request leaves the
// namespace, and nothing is logged but the listening ports.
import dgram from "node:dgram";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";

function answer(q) {
  // q: a DNS query message. Returns the response, or null if unreadable.
  if (q.length < 12) return null;
  let i = 12;
  while (i < q.length && q[i] !== 0) {
    if ((q[i] & 0xc0) !== 0) return null;
    i += q[i] + 1;
  }
  if (i + 5 > q.length) return null;
  const question = q.subarray(12, i + 5);
  const qtype = q.readUInt16BE(i + 1);
  const isA = qtype === 1;
  const head = Buffer.alloc(12);
  q.copy(head, 0, 0, 2); // ID
  head.writeUInt16BE(0x8180 | (q.readUInt16BE(2) & 0x0100), 2); // response, RD copied, RA, NOERROR
  head.writeUInt16BE(1, 4); // one question
  head.writeUInt16BE(isA ? 1 : 0, 6);
  const parts = [head, question];
  if (isA) {
    const rr = Buffer.alloc(16);
    rr.writeUInt16BE(0xc00c, 0); // name: pointer to the question
    rr.writeUInt16BE(1, 2); // A
    rr.writeUInt16BE(1, 4); // IN
    rr.writeUInt32BE(60, 6); // TTL
    rr.writeUInt16BE(4, 10);
    Buffer.from([127, 0, 0, 1]).copy(rr, 12);
    parts.push(rr);
  }
  return Buffer.concat(parts);
}

const listening = [];
const ready = () => {
  if (listening.length === 4) fs.writeFileSync(process.argv[2], listening.join(" ") + "\n");
};

const udp = dgram.createSocket("udp4");
udp.on("message", (msg, rinfo) => {
  const r = answer(msg);
  if (r) udp.send(r, rinfo.port, rinfo.address);
});
udp.bind(53, "127.0.0.1", () => {
  listening.push("udp/53");
  ready();
});

const tcp = net.createServer((s) => {
  let buf = Buffer.alloc(0);
  s.on("data", (d) => {
    buf = Buffer.concat([buf, d]);
    while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
      const r = answer(buf.subarray(2, 2 + buf.readUInt16BE(0)));
      buf = buf.subarray(2 + buf.readUInt16BE(0));
      if (!r) return s.destroy();
      const len = Buffer.alloc(2);
      len.writeUInt16BE(r.length);
      s.write(Buffer.concat([len, r]));
    }
  });
  s.on("error", () => {});
});
tcp.listen(53, "127.0.0.1", () => {
  listening.push("tcp/53");
  ready();
});

for (const port of [80]) {
  const srv = http.createServer((req, res) => {
    req.resume();
    const body = JSON.stringify({ error: "unauthorized", message: "401 Unauthorized" });
    res.writeHead(401, { "content-type": "application/json", "www-authenticate": 'Bearer realm="capture"' });
    res.end(body);
  });
  srv.on("clientError", (_e, s) => s.destroy());
  srv.listen(port, "127.0.0.1", () => {
    listening.push(`http/${port}`);
    ready();
  });
}
// IPv6 loopback for the 401 answer too, for clients that try ::1 first.
const srv6 = http.createServer((req, res) => {
  req.resume();
  res.writeHead(401, { "content-type": "application/json" });
  res.end('{"error":"unauthorized"}');
});
srv6.on("error", () => {
  listening.push("no-ipv6");
  ready();
});
srv6.listen(80, "::1", () => {
  listening.push("http6/80");
  ready();
});
