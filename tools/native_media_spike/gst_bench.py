"""GStreamer webrtcbin side of the spike (Debian python3 + python3-gi, GStreamer 1.22).
`server`: answers offers POSTed to :8701/offer; `client N`: makes N offers; both serve /stats (:8701 / :8702).
Each call is one pipeline: appsrc (a fixed 80-byte Opus frame pushed from Python every 20 ms on one shared GLib timer)
! rtpopuspay ! webrtcbin; webrtcbin's received RTP (after its rtpbin/jitterbuffer) goes to fakesink (no decode).
One data channel (client sends 1 msg/s, server echoes). Packet counts come from webrtcbin's get-stats (native)."""

import json, sys, threading, time
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
import urllib.request
import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstWebRTC", "1.0")
gi.require_version("GstSdp", "1.0")
from gi.repository import Gst, GstWebRTC, GstSdp, GLib

Gst.init(None)
PAYLOAD = bytes([0xFC]) + bytes((i * 37) & 255 for i in range(1, 80))
PIPE = (
    "appsrc name=src is-live=true format=time do-timestamp=true "
    "caps=audio/x-opus,channel-mapping-family=0,channels=1,rate=48000 ! rtpopuspay pt=111 ! "
    "application/x-rtp,media=audio,encoding-name=OPUS,payload=111,clock-rate=48000 ! "
    "webrtcbin name=w bundle-policy=max-bundle"
)
calls = []
lock = threading.Lock()


class Call:
    def __init__(self, server):
        self.pipe = Gst.parse_launch(PIPE)
        self.w = self.pipe.get_by_name("w")
        self.src = self.pipe.get_by_name("src")
        self.tx = 0
        self.dc = 0
        self.chan = None
        self.w.connect("pad-added", self.on_pad)
        tr = self.w.emit("get-transceiver", 0)  # no caps have flowed yet: tell webrtcbin the codec up front
        tr.set_property(
            "codec-preferences",
            Gst.Caps.from_string(
                "application/x-rtp,media=audio,encoding-name=OPUS,payload=111,clock-rate=48000"
            ),
        )
        tr.set_property("direction", GstWebRTC.WebRTCRTPTransceiverDirection.SENDRECV)
        if server:
            self.w.connect("on-data-channel", self.on_dc)
        self.pipe.set_state(Gst.State.PLAYING)
        with lock:
            calls.append(self)

    def on_pad(self, w, pad):
        if pad.get_direction() != Gst.PadDirection.SRC:
            return
        sink = Gst.ElementFactory.make("fakesink")
        sink.set_property("sync", False)
        sink.set_property("async", False)
        self.pipe.add(sink)
        sink.sync_state_with_parent()
        pad.link(sink.get_static_pad("sink"))

    def on_dc(self, w, ch):
        self.chan = ch
        ch.connect("on-message-string", lambda ch, m: (self._count(), ch.emit("send-string", m)))

    def _count(self):
        self.dc += 1

    def connected(self):
        return self.w.get_property("connection-state") == GstWebRTC.WebRTCPeerConnectionState.CONNECTED

    def wait_gathered(self):
        for _ in range(500):
            if self.w.get_property("ice-gathering-state") == GstWebRTC.WebRTCICEGatheringState.COMPLETE:
                return
            time.sleep(0.01)

    def local_sdp(self):
        return self.w.get_property("local-description").sdp.as_text()

    def set_desc(self, kind, text):
        _, msg = GstSdp.SDPMessage.new_from_text(text)
        t = GstWebRTC.WebRTCSDPType.OFFER if kind == "offer" else GstWebRTC.WebRTCSDPType.ANSWER
        p = Gst.Promise.new()
        self.w.emit("set-remote-description", GstWebRTC.WebRTCSessionDescription.new(t, msg), p)
        p.wait()

    def make(self, kind):
        p = Gst.Promise.new()
        self.w.emit("create-offer" if kind == "offer" else "create-answer", None, p)
        p.wait()
        reply = p.get_reply()  # keep the reply alive while its value is used
        desc = reply.get_value(kind)
        p = Gst.Promise.new()
        self.w.emit("set-local-description", desc, p)
        p.wait()

    def rx_packets(self):
        p = Gst.Promise.new()
        self.w.emit("get-stats", None, p)
        p.wait()
        n = [0]

        def each(field, value):
            if isinstance(value, Gst.Structure) and GLib.quark_to_string(field).startswith(
                "rtp-inbound-stream-stats"
            ):
                ok, v = value.get_uint64("packets-received")
                if ok:
                    n[0] += v
            return True

        p.get_reply().foreach(each)
        return n[0]


def stats():
    with lock:
        cs = list(calls)
    return {
        "calls": len(cs),
        "connected": sum(c.connected() for c in cs),
        "rx": [c.rx_packets() for c in cs],
        "tx": [c.tx for c in cs],
        "dc": [c.dc for c in cs],
    }


def tick():  # one shared 20 ms grid: push one Opus frame into every connected call
    with lock:
        cs = list(calls)
    for c in cs:
        if c.connected():
            buf = Gst.Buffer.new_wrapped(PAYLOAD)
            buf.duration = 20 * Gst.MSECOND
            c.src.emit("push-buffer", buf)
            c.tx += 1
    return True


class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def reply(self, obj):
        b = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)

    def do_GET(self):
        self.reply(stats())

    def do_POST(self):
        d = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        c = Call(server=True)
        c.set_desc("offer", d["sdp"])
        c.make("answer")
        c.wait_gathered()
        self.reply({"type": "answer", "sdp": c.local_sdp()})


def client(n):
    for i in range(n):
        c = Call(server=False)
        c.chan = c.w.emit("create-data-channel", "oai-events", None)
        c.chan.connect("on-message-string", lambda ch, m, c=c: c._count())
        c.make("offer")
        c.wait_gathered()
        req = urllib.request.Request(
            "http://127.0.0.1:8701/offer",
            json.dumps({"type": "offer", "sdp": c.local_sdp()}).encode(),
            {"Content-Type": "application/json"},
        )
        a = json.load(urllib.request.urlopen(req, timeout=30))
        c.set_desc("answer", a["sdp"])
    print("client: offers done", flush=True)


def dc_tick():
    with lock:
        cs = list(calls)
    for c in cs:
        if c.chan is not None and c.chan.get_property("ready-state") == GstWebRTC.WebRTCDataChannelState.OPEN:
            c.chan.emit("send-string", '{"type":"input_audio_buffer.commit"}')
    return True


def main():
    server = sys.argv[1] == "server"
    httpd = ThreadingHTTPServer(("127.0.0.1", 8701 if server else 8702), H)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    GLib.timeout_add(20, tick)
    if not server:
        GLib.timeout_add(1000, dc_tick)
        threading.Thread(target=client, args=(int(sys.argv[2]),), daemon=True).start()
    GLib.MainLoop().run()


main()
