// mockengine-pion: the native media plane of `mockengine serve --media-plane pion` (docs/webrtc.md,
// "Ninth pass"). One process terminates ICE, DTLS, SRTP and SCTP for every call of one engine process
// with pion/webrtc v3, all calls on one UDP port (ICE UDP mux), and exchanges with the engine over one
// Unix socket (fd 3, handed over by the engine) framed messages:
//
//	every message: u32 length (of what follows, little-endian), u8 kind, body
//
// engine → sidecar
//
//	'O' offer     u32 call, SDP offer text                → 'A'
//	'D' send      u32 call, text for the oai-events channel
//	'F' frames    repeated {u32 call, u32 rtp timestamp (48 kHz, from 0), u16 length, Opus payload}
//	'X' close the call's data channel (fault datachannel_close)
//	'H' hang up   u32 call (closes the peer connection)     → 'S' ended
//
// sidecar → engine
//
//	'P' ready     u16 UDP port
//	'A' answer    u32 call, u8 ok, answer SDP or the error's text
//	'S' state     u32 call, u8 state (1 connected, 2 channel open, 3 channel closed, 4 ended,
//	              5 channel congested: over 1 MiB buffered, 6 channel drained: under 256 KiB again), reason
//	'M' message   u32 call, u8 is_text, data (a message from oai-events)
//	'R' received  one per 20 ms tick while calls live: u64 CLOCK_MONOTONIC ns when the batch was
//	              closed, then repeated {u32 call, u16 RTP sequence number, u32 RTP timestamp,
//	              u16 length, Opus payload}, in arrival order
//
// Reply frames are sent as they come (the engine paces them on its 20 ms grid); the engine's clock is
// the 'R' batch. Built by build.sh from Debian's packages (GOPATH mode, offline).
package main

import (
	"encoding/binary"
	"errors"
	"flag"
	"io"
	"log"
	"math/rand"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pion/ice/v2"
	"github.com/pion/interceptor"
	"github.com/pion/rtp"
	"github.com/pion/webrtc/v3"
	"golang.org/x/sys/unix"
)

const (
	stateConnected     = 1
	stateChannelOpen   = 2
	stateChannelClosed = 3
	stateEnded         = 4
	stateCongested     = 5
	stateDrained       = 6
	highWaterBytes     = 1 << 20   // the engine's ChannelSender waits past this much buffered
	lowWaterBytes      = 256 << 10 // until it is down to this
	eventsChannel      = "oai-events"
	// The largest message a client may send on oai-events, as aiortc's answer names it (its
	// LOCAL_MAX_MESSAGE_SIZE): pion/webrtc 3.1 names none in its answer, so a browser sent at most
	// 64 KiB (RFC 8841 §6's default), and read at most 65,535 bytes a message (dataChannelBufferSize,
	// which build.sh raises to this in a private copy of pion/webrtc).
	maxMessageBytes = 262144
	tick            = 20 * time.Millisecond
	// A peer whose port has refused the call's packets (ICMP port unreachable) for this long, at least
	// refusedAtLeast times, with nothing heard from it meanwhile, is gone (rtc/peer_gone.py's rule).
	refusedFor     = 2 * time.Second
	refusedAtLeast = 3
	goneReason     = "the peer's port refuses the call's packets (ICMP port unreachable)"
	// When the engine goes, every call's close (DTLS close_notify, which the client's stack reports as
	// its channel and connection closed) is waited for this long at most before the process exits.
	closeWait = 2 * time.Second
)

type call struct {
	id        uint32
	pc        *webrtc.PeerConnection
	track     *webrtc.TrackLocalStaticRTP
	mu        sync.Mutex
	dc        *webrtc.DataChannel
	seq       uint16
	tsOrigin  uint32
	connected bool
	ended     bool
	marker    bool // the next reply packet starts a talkspurt (RFC 3551 §4.1)
	congested bool // the engine was told the channel is congested, and not yet that it drained
	lastTS    uint32
}

type plane struct {
	api     *webrtc.API
	refused refusals
	conn    net.Conn
	writeMu sync.Mutex
	mu      sync.Mutex
	calls   map[uint32]*call
	batchMu sync.Mutex
	batch   []byte // the 'R' entries since the last tick
	// closes the engine asked for ('X', 'H') and those of the shutdown: each is waited for before the
	// process exits, or an exit racing them leaves the client with no word that its call ended.
	closes     sync.WaitGroup
	engineGone atomic.Bool // the engine's socket closed: nothing more is written to it
}

func main() {
	port := flag.Int("udp-port", 0, "the UDP port every call shares (0: any free one)")
	host := flag.String("host", "", "gather candidates only on this IP (default: every interface, loopback included)")
	fd := flag.Int("fd", 3, "the engine's Unix socket, inherited")
	flag.Parse()
	log.SetPrefix("mockengine-pion: ")
	file := os.NewFile(uintptr(*fd), "engine")
	conn, err := net.FileConn(file)
	if err != nil {
		log.Fatalf("fd %d is not a socket: %v", *fd, err)
	}
	file.Close()
	p := &plane{conn: conn, calls: map[uint32]*call{}}
	udpPort, err := p.setUp(*port, *host)
	if err != nil {
		log.Fatalf("UDP mux: %v", err)
	}
	var body [2]byte
	binary.LittleEndian.PutUint16(body[:], uint16(udpPort))
	p.send('P', body[:])
	// The engine stops its sidecar by closing its socket: a Ctrl-C in a terminal, which reaches the
	// sidecar too (one process group), is left to the engine, which may still end its calls its own way.
	// A SIGTERM for the sidecar alone ends it as the engine's going does.
	signal.Ignore(syscall.SIGINT)
	terms := make(chan os.Signal, 1)
	signal.Notify(terms, syscall.SIGTERM)
	go func() {
		<-terms
		p.conn.Close()
	}()
	go p.ticker()
	go p.watchRefusals()
	p.read() // returns when the engine goes: the sidecar goes with it
	p.shutDown()
}

// shutDown closes every call and waits, closeWait at most, for those closes and any the engine asked
// for before it went: a close is what tells the client its call ended (else it waits for consent expiry).
func (p *plane) shutDown() {
	p.engineGone.Store(true)
	calls := p.liveCalls()
	for _, c := range calls {
		c := c // Go 1.19 (Debian's): one loop variable for every iteration
		p.closing(func() { p.hangUp(c, "the engine stopped") })
	}
	done := make(chan struct{})
	go func() {
		p.closes.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(closeWait):
		log.Printf("%d calls' closes not done after %v: exiting without them", len(calls), closeWait)
	}
}

// closing runs close in a goroutine (a peer connection's close waits on its transports: the engine's
// socket is read on meanwhile) that shutDown waits for. Only the read loop and shutDown call it, one
// after the other, so no Add races the Wait.
func (p *plane) closing(close func()) {
	p.closes.Add(1)
	go func() {
		defer p.closes.Done()
		close()
	}()
}

func (p *plane) setUp(port int, host string) (int, error) {
	m := &webrtc.MediaEngine{}
	// Opus only: the engine's reply track and its microphone decoder are Opus (RFC 7587's fmtp as
	// libwebrtc answers it: in-band FEC, which the engine's decoder uses for a lost packet).
	if err := m.RegisterCodec(webrtc.RTPCodecParameters{
		RTPCodecCapability: webrtc.RTPCodecCapability{
			MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2, SDPFmtpLine: "minptime=10;useinbandfec=1",
		},
		PayloadType: 111,
	}, webrtc.RTPCodecTypeAudio); err != nil {
		return 0, err
	}
	// Video is not taken (images come as conversation items), but a camera's line is answered
	// inactive, not rejected: a rejected line (port 0, no ICE credentials) is one aiortc cannot parse.
	for i, mime := range []string{webrtc.MimeTypeVP8, webrtc.MimeTypeH264} {
		if err := m.RegisterCodec(webrtc.RTPCodecParameters{
			RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: mime, ClockRate: 90000},
			PayloadType:        webrtc.PayloadType(96 + i),
		}, webrtc.RTPCodecTypeVideo); err != nil {
			return 0, err
		}
	}
	ir := &interceptor.Registry{}
	// RTCP sender and receiver reports only: no NACK (audio is not retransmitted), no TWCC.
	if err := webrtc.ConfigureRTCPReports(ir); err != nil {
		return 0, err
	}
	s := webrtc.SettingEngine{}
	s.SetIncludeLoopbackCandidate(true)
	s.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	s.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	// A client that went quiet without a word (its network gone, its process frozen, across NAT where no
	// ICMP comes back) stops answering ICE checks (sent every second): the call is disconnected 5 s after
	// the last packet heard and ends 25 s after that, at RFC 7675's 30 s consent expiry as on the aiortc
	// plane (aioice: 27-39 s), since such a peer may come back. A killed client whose host refuses the
	// packets (ICMP port unreachable) is ended within ~2 s by watchRefusals, as on the aiortc plane.
	s.SetICETimeouts(5*time.Second, 25*time.Second, time.Second)
	if port == 0 {
		port = freeUDPPort()
	}
	mux, err := p.refused.listen(port, host)
	if err != nil {
		return 0, err
	}
	s.SetICEUDPMux(mux)
	p.api = webrtc.NewAPI(webrtc.WithMediaEngine(m), webrtc.WithInterceptorRegistry(ir), webrtc.WithSettingEngine(s))
	return port, nil
}

func freeUDPPort() int {
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4zero})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// send writes one message to the engine.
func (p *plane) send(kind byte, parts ...[]byte) {
	n := 1
	for _, part := range parts {
		n += len(part)
	}
	msg := make([]byte, 4, 4+n)
	binary.LittleEndian.PutUint32(msg, uint32(n))
	msg = append(msg, kind)
	for _, part := range parts {
		msg = append(msg, part...)
	}
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if p.engineGone.Load() {
		return
	}
	if _, err := p.conn.Write(msg); err != nil {
		// The engine is gone (its end closed): not an exit here, which would cut the calls' closes
		// short, but the socket closed, so the read loop ends and shutDown closes them.
		p.engineGone.Store(true)
		p.conn.Close()
	}
}

func u32(v uint32) []byte {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	return b[:]
}

func (p *plane) state(c *call, state byte, reason string) {
	p.send('S', u32(c.id), []byte{state}, []byte(reason))
}

func (p *plane) read() {
	var head [5]byte
	for {
		if _, err := io.ReadFull(p.conn, head[:4]); err != nil {
			return
		}
		body := make([]byte, binary.LittleEndian.Uint32(head[:4]))
		if _, err := io.ReadFull(p.conn, body); err != nil || len(body) == 0 {
			return
		}
		kind, body := body[0], body[1:]
		if kind == 'F' {
			p.frames(body)
			continue
		}
		if len(body) < 4 {
			continue
		}
		id, rest := binary.LittleEndian.Uint32(body), body[4:]
		switch kind {
		case 'O':
			go p.offer(id, string(rest))
		case 'D':
			if c := p.call(id); c != nil {
				c.mu.Lock()
				dc := c.dc
				c.mu.Unlock()
				if dc != nil {
					if err := dc.SendText(string(rest)); err != nil {
						log.Printf("call %d: a message of %d bytes not sent: %v", id, len(rest), err)
					} else if dc.BufferedAmount() > highWaterBytes {
						p.congested(c, dc)
					}
				}
			}
		case 'X':
			if c := p.call(id); c != nil {
				c.mu.Lock()
				dc := c.dc
				c.mu.Unlock()
				if dc != nil {
					p.closing(func() { _ = dc.Close() })
				}
			}
		case 'H':
			if c := p.call(id); c != nil {
				p.closing(func() { p.hangUp(c, "hangup") })
			}
		}
	}
}

// congested tells the engine to hold its sends (its ChannelSender waits as on aiortc's channel) until
// drained. Checked again after the flag is set: a drain between the send and the flag is not lost.
func (p *plane) congested(c *call, dc *webrtc.DataChannel) {
	c.mu.Lock()
	was := c.congested
	c.congested = true
	c.mu.Unlock()
	if !was {
		p.state(c, stateCongested, "")
	}
	if dc.BufferedAmount() <= lowWaterBytes {
		p.drained(c)
	}
}

func (p *plane) drained(c *call) {
	c.mu.Lock()
	was := c.congested
	c.congested = false
	c.mu.Unlock()
	if was {
		p.state(c, stateDrained, "")
	}
}

func (p *plane) call(id uint32) *call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[id]
}

// liveCalls is a snapshot of the calls, taken under the lock, to act on (close, hang up) without it.
func (p *plane) liveCalls() []*call {
	p.mu.Lock()
	defer p.mu.Unlock()
	calls := make([]*call, 0, len(p.calls))
	for _, c := range p.calls {
		calls = append(calls, c)
	}
	return calls
}

// frames sends the engine's reply frames, each as one RTP packet on its call's track.
func (p *plane) frames(b []byte) {
	for len(b) >= 10 {
		id := binary.LittleEndian.Uint32(b)
		ts := binary.LittleEndian.Uint32(b[4:])
		n := int(binary.LittleEndian.Uint16(b[8:]))
		if len(b) < 10+n {
			return
		}
		payload := b[10 : 10+n]
		b = b[10+n:]
		c := p.call(id)
		if c == nil {
			continue
		}
		c.mu.Lock()
		if !c.connected || c.ended {
			c.mu.Unlock()
			continue
		}
		// A jump in the engine's timestamps beyond one frame is a DTX gap: the next packet starts a talkspurt.
		marker := c.marker || ts-c.lastTS > 960
		c.marker = false
		c.lastTS = ts
		pkt := &rtp.Packet{Header: rtp.Header{Version: 2, Marker: marker, SequenceNumber: c.seq, Timestamp: c.tsOrigin + ts}, Payload: payload}
		c.seq++
		track := c.track
		c.mu.Unlock()
		_ = track.WriteRTP(pkt)
	}
}

func (p *plane) offer(id uint32, sdp string) {
	answer, err := p.answer(id, sdp)
	if err != nil {
		p.send('A', u32(id), []byte{0}, []byte(err.Error()))
		return
	}
	p.send('A', u32(id), []byte{1}, []byte(answer))
}

func (p *plane) answer(id uint32, sdp string) (string, error) {
	if !strings.Contains(sdp, "m=application") {
		return "", errors.New("it has no data channel (m=application) for oai-events")
	}
	pc, err := p.api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return "", err
	}
	c := &call{id: id, pc: pc, seq: uint16(rand.Uint32()), tsOrigin: rand.Uint32(), marker: true}
	fail := func(err error) (string, error) {
		pc.Close()
		return "", err
	}
	track, err := webrtc.NewTrackLocalStaticRTP(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2}, "audio", "mockengine")
	if err != nil {
		return fail(err)
	}
	c.track = track
	pc.OnDataChannel(func(dc *webrtc.DataChannel) {
		if dc.Label() != eventsChannel {
			return // other channels carry nothing the service reads
		}
		c.mu.Lock()
		if c.dc != nil {
			c.mu.Unlock()
			return
		}
		c.dc = dc
		c.mu.Unlock()
		dc.SetBufferedAmountLowThreshold(lowWaterBytes)
		dc.OnBufferedAmountLow(func() { p.drained(c) })
		dc.OnOpen(func() { p.state(c, stateChannelOpen, "") })
		dc.OnClose(func() { p.state(c, stateChannelClosed, "") })
		dc.OnMessage(func(m webrtc.DataChannelMessage) {
			isText := byte(0)
			if m.IsString {
				isText = 1
			}
			p.send('M', u32(c.id), []byte{isText}, m.Data)
		})
	})
	pc.OnTrack(func(t *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		if t.Kind() != webrtc.RTPCodecTypeAudio {
			return
		}
		var entry [12]byte
		for {
			pkt, _, err := t.ReadRTP()
			if err != nil {
				return
			}
			binary.LittleEndian.PutUint32(entry[:], c.id)
			binary.LittleEndian.PutUint16(entry[4:], pkt.SequenceNumber)
			binary.LittleEndian.PutUint32(entry[6:], pkt.Timestamp)
			binary.LittleEndian.PutUint16(entry[10:], uint16(len(pkt.Payload)))
			p.batchMu.Lock()
			p.batch = append(append(p.batch, entry[:]...), pkt.Payload...)
			p.batchMu.Unlock()
		}
	})
	pc.OnConnectionStateChange(func(s webrtc.PeerConnectionState) {
		switch s {
		case webrtc.PeerConnectionStateConnected:
			c.mu.Lock()
			c.connected = true
			c.mu.Unlock()
			p.state(c, stateConnected, "")
		case webrtc.PeerConnectionStateFailed, webrtc.PeerConnectionStateClosed:
			go p.hangUp(c, s.String())
		}
	})
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: sdp}); err != nil {
		return fail(err)
	}
	audio := 0
	for _, t := range pc.GetTransceivers() {
		if t.Kind() != webrtc.RTPCodecTypeAudio || audio > 0 {
			_ = t.Stop() // one microphone, no video: answered inactive

			continue
		}
		audio++
		sender, err := pc.AddTrack(track)
		if err != nil {
			return fail(err)
		}
		go drainRTCP(sender)
	}
	answer, err := pc.CreateAnswer(nil)
	if err != nil {
		return fail(err)
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(answer); err != nil {
		return fail(err)
	}
	<-gathered
	p.mu.Lock()
	p.calls[id] = c
	p.mu.Unlock()
	return withMaxMessageSize(pc.LocalDescription().SDP), nil
}

// withMaxMessageSize adds a=max-message-size (RFC 8841 §6) after the answer's a=sctp-port line.
func withMaxMessageSize(sdp string) string {
	lines := strings.Split(sdp, "\r\n")
	out := make([]string, 0, len(lines)+1)
	for _, line := range lines {
		out = append(out, line)
		if strings.HasPrefix(line, "a=sctp-port:") {
			out = append(out, "a=max-message-size:"+strconv.Itoa(maxMessageBytes))
		}
	}
	return strings.Join(out, "\r\n")
}

// monotonicNs is CLOCK_MONOTONIC, the clock of Python's time.monotonic(): the engine times the
// microphone's quiet by these stamps, not by when a batch reached it.
func monotonicNs() []byte {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(ts.Nano()))
	return b[:]
}

func drainRTCP(sender *webrtc.RTPSender) {
	buf := make([]byte, 1500)
	for {
		if _, _, err := sender.Read(buf); err != nil {
			return
		}
	}
}

func (p *plane) hangUp(c *call, reason string) {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return
	}
	c.ended = true
	c.mu.Unlock()
	p.mu.Lock()
	delete(p.calls, c.id)
	idle := len(p.calls) == 0
	p.mu.Unlock()
	p.state(c, stateEnded, reason)
	_ = c.pc.Close()
	if idle && !p.engineGone.Load() {
		// Go keeps a heap it no longer uses for minutes before giving it back: after 25 calls the idle
		// sidecar held twice its idle RSS (28.7 against 14.2 MiB). With no call left, give it back now.
		debug.FreeOSMemory()
	}
}

// ticker sends the engine one batch of received audio per 20 ms while any call lives: the engine's
// clock for its reply frames.
func (p *plane) ticker() {
	t := time.NewTicker(tick)
	for range t.C {
		p.mu.Lock()
		live := len(p.calls)
		p.mu.Unlock()
		p.batchMu.Lock()
		batch := p.batch
		p.batch = make([]byte, 0, len(batch)+64)
		p.batchMu.Unlock()
		if live == 0 && len(batch) == 0 {
			continue
		}
		p.send('R', monotonicNs(), batch)
	}
}

// refusals watches the mux's UDP sockets for ICMP errors: each socket has IP_RECVERR on (an unconnected
// UDP socket hears of no ICMP without it), and its error queue says which address refused a packet.
// The kernel also reports such an error once to the socket's next read or write, whichever call's it is:
// both are retried here, or an ICMP for one call would fail another's read or SCTP write (pion's SCTP
// ends its association on a failed write).
type refusals struct {
	mu      sync.Mutex
	byAddr  map[netip.AddrPort]*refusal
	pending atomic.Int32 // len(byAddr): the read path looks up its sender only while some address refused
	conns   []*watchedConn
}

type refusal struct {
	first time.Time
	count int
}

type watchedConn struct {
	*net.UDPConn
	raw syscall.RawConn
	r   *refusals
}

// listen opens the shared port on every local IPv4 address (loopback included; only host's if set),
// as ice.NewMultiUDPMuxFromPort does, each socket watched.
func (r *refusals) listen(port int, host string) (ice.UDPMux, error) {
	r.byAddr = map[netip.AddrPort]*refusal{}
	ifaces, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	var muxes []ice.UDPMux
	for _, iface := range ifaces {
		if iface.Flags&net.FlagUp == 0 {
			continue
		}
		addrs, err := iface.Addrs()
		if err != nil {
			continue
		}
		for _, addr := range addrs {
			ipNet, ok := addr.(*net.IPNet)
			if !ok || ipNet.IP.To4() == nil || (host != "" && ipNet.IP.String() != host) {
				continue
			}
			conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: ipNet.IP, Port: port})
			if err != nil {
				return nil, err
			}
			raw, err := conn.SyscallConn()
			if err != nil {
				return nil, err
			}
			var optErr error
			if err := raw.Control(func(fd uintptr) {
				optErr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_RECVERR, 1)
			}); err != nil {
				return nil, err
			} else if optErr != nil {
				return nil, optErr
			}
			watched := &watchedConn{UDPConn: conn, raw: raw, r: r}
			r.conns = append(r.conns, watched)
			muxes = append(muxes, ice.NewUDPMuxDefault(ice.UDPMuxParams{UDPConn: watched}))
		}
	}
	if len(muxes) == 0 {
		return nil, errors.New("no IPv4 address to listen on")
	}
	return ice.NewMultiUDPMuxDefault(muxes...), nil
}

// isICMPError: the errors an ICMP error queued on the socket makes a read or write return.
func isICMPError(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) ||
		errors.Is(err, syscall.ENETUNREACH)
}

func (c *watchedConn) ReadFrom(b []byte) (int, net.Addr, error) {
	for {
		n, addr, err := c.UDPConn.ReadFromUDPAddrPort(b)
		if err == nil {
			if c.r.pending.Load() > 0 {
				c.r.heard(addr)
			}
			return n, net.UDPAddrFromAddrPort(addr), nil
		}
		if !isICMPError(err) {
			return n, nil, err
		}
		c.drain()
	}
}

func (c *watchedConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	n, err := c.UDPConn.WriteTo(b, addr)
	if err != nil && isICMPError(err) {
		c.drain() // an earlier packet's refusal, reported to this write: this one was not sent
		n, err = c.UDPConn.WriteTo(b, addr)
	}
	return n, err
}

// drain reads the socket's error queue: each entry is one refused packet, addressed to whom refused it.
func (c *watchedConn) drain() {
	var buf [64]byte
	var oob [512]byte
	_ = c.raw.Control(func(fd uintptr) {
		for {
			_, _, _, from, err := unix.Recvmsg(int(fd), buf[:], oob[:], unix.MSG_ERRQUEUE|unix.MSG_DONTWAIT)
			if err != nil {
				return
			}
			if sa, ok := from.(*unix.SockaddrInet4); ok {
				c.r.refuse(netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), uint16(sa.Port)))
			}
		}
	})
}

func (r *refusals) refuse(addr netip.AddrPort) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if found := r.byAddr[addr]; found != nil {
		found.count++
		return
	}
	r.byAddr[addr] = &refusal{first: time.Now(), count: 1}
	r.pending.Store(int32(len(r.byAddr)))
}

// heard: a packet came from addr, so it is not gone (a refusal may be a port that was closed and reopened).
func (r *refusals) heard(addr netip.AddrPort) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, found := r.byAddr[addr]; found {
		delete(r.byAddr, addr)
		r.pending.Store(int32(len(r.byAddr)))
	}
}

// gone: whether addr has refused the call's packets for refusedFor, refusedAtLeast times.
func (r *refusals) gone(addr netip.AddrPort, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	found := r.byAddr[addr]
	return found != nil && found.count >= refusedAtLeast && now.Sub(found.first) >= refusedFor
}

// forget drops refusals older than a minute that no call's pair names (a pair since changed, a call ended).
func (r *refusals) forget(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for addr, found := range r.byAddr {
		if now.Sub(found.first) > time.Minute {
			delete(r.byAddr, addr)
		}
	}
	r.pending.Store(int32(len(r.byAddr)))
}

// watchRefusals ends, every 250 ms, each call whose nominated pair's remote address is gone (the pair
// nominated now: a browser nominates a better pair seconds into a call).
func (p *plane) watchRefusals() {
	t := time.NewTicker(250 * time.Millisecond)
	for now := range t.C {
		for _, conn := range p.refused.conns {
			conn.drain() // errors no read or write has met yet
		}
		if p.refused.pending.Load() == 0 {
			continue
		}
		for _, c := range p.liveCalls() {
			sctp := c.pc.SCTP()
			if sctp == nil {
				continue
			}
			pair, err := sctp.Transport().ICETransport().GetSelectedCandidatePair()
			if err != nil || pair == nil || pair.Remote == nil {
				continue
			}
			ip, err := netip.ParseAddr(pair.Remote.Address)
			if err != nil {
				continue
			}
			if p.refused.gone(netip.AddrPortFrom(ip.Unmap(), pair.Remote.Port), now) {
				go p.hangUp(c, goneReason)
			}
		}
		p.refused.forget(now)
	}
}
