"""aiortc side of the spike: `server` answers offers on :8701 (/offer, /stats); `client N` makes N offers (/stats on :8702).
Each call: one audio track each way sending a fixed Opus payload every 20 ms (av.Packet: no encoding), one data channel
(client sends 1 msg/s, server echoes). Received frames are counted where aiortc's receiver would hand them to its decoder
thread (its private decoder queue is replaced by a counter): ICE, DTLS, SRTP, RTP, jitter buffer, RTCP all run; no decode."""

import asyncio, fractions, json, sys, threading, time
import aioice.ice

aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"]  # loopback ICE on one machine
import av
from aiohttp import web, ClientSession
from aiortc import RTCPeerConnection, RTCSessionDescription, RTCConfiguration, MediaStreamTrack

PAYLOAD = bytes([0xFC]) + bytes((i * 37) & 255 for i in range(1, 80))
TB = fractions.Fraction(1, 48000)
T0 = time.monotonic()
calls = []


class Counter:  # stands in for RTCRtpReceiver's decoder queue
    def __init__(self, call):
        self.call = call
        self.done = threading.Event()

    def put(self, item):
        if item is None:
            self.done.set()
        else:
            self.call["rx"] += 1

    def get(self):  # aiortc's decoder thread blocks here until the receiver stops
        self.done.wait()
        return None


class OpusTrack(MediaStreamTrack):
    kind = "audio"

    def __init__(self, call):
        super().__init__()
        self.k = 0
        self.call = call

    async def recv(self):
        # one shared 20 ms grid for every call
        now = time.monotonic()
        k = max(self.k, int((now - T0) / 0.02) + 1)
        await asyncio.sleep(T0 + k * 0.02 - now)
        self.k = k + 1
        p = av.Packet(PAYLOAD)
        p.pts = k * 960
        p.time_base = TB
        self.call["tx"] += 1
        return p


def new_call():
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    call = {"pc": pc, "rx": 0, "tx": 0, "dc": 0, "conn": False, "chan": None}
    pc.addTrack(OpusTrack(call))

    @pc.on("connectionstatechange")
    def _():
        call["conn"] = pc.connectionState == "connected"

    @pc.on("track")
    def _(track):
        for t in pc.getTransceivers():
            if t.receiver.track is track:
                t.receiver._RTCRtpReceiver__decoder_queue = Counter(call)

    calls.append(call)
    return call


def wire_dc(call, ch, echo):
    call["chan"] = ch

    @ch.on("message")
    def _(m):
        call["dc"] += 1
        if echo:
            ch.send(m)


async def stats(request):
    return web.json_response(
        {
            "calls": len(calls),
            "connected": sum(c["conn"] for c in calls),
            "rx": [c["rx"] for c in calls],
            "tx": [c["tx"] for c in calls],
            "dc": [c["dc"] for c in calls],
        }
    )


async def offer(request):
    d = await request.json()
    call = new_call()
    pc = call["pc"]
    pc.on("datachannel", lambda ch: wire_dc(call, ch, True))
    await pc.setRemoteDescription(RTCSessionDescription(sdp=d["sdp"], type=d["type"]))
    await pc.setLocalDescription(await pc.createAnswer())
    return web.json_response({"sdp": pc.localDescription.sdp, "type": pc.localDescription.type})


async def serve(port, routes):
    app = web.Application()
    app.add_routes(routes)
    r = web.AppRunner(app, access_log=None)
    await r.setup()
    await web.TCPSite(r, "127.0.0.1", port).start()


async def client(n):
    await serve(8702, [web.get("/stats", stats)])
    async with ClientSession() as s:
        for i in range(n):
            call = new_call()
            pc = call["pc"]
            wire_dc(call, pc.createDataChannel("oai-events"), False)
            await pc.setLocalDescription(await pc.createOffer())
            async with s.post(
                "http://127.0.0.1:8701/offer", json={"sdp": pc.localDescription.sdp, "type": "offer"}
            ) as r:
                a = await r.json()
            await pc.setRemoteDescription(RTCSessionDescription(sdp=a["sdp"], type=a["type"]))
    print("client: offers done", flush=True)
    k = 0
    while True:
        await asyncio.sleep(1)
        k += 1
        for c in calls:
            if c["conn"] and c["chan"] is not None and c["chan"].readyState == "open":
                c["chan"].send(json.dumps({"type": "input_audio_buffer.commit", "n": k}))


async def main():
    if sys.argv[1] == "server":
        await serve(8701, [web.get("/stats", stats), web.post("/offer", offer)])
        await asyncio.Event().wait()
    else:
        await client(int(sys.argv[2]))


asyncio.run(main())
