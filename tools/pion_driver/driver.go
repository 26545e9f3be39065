// mockengine-pion-driver: the WebRTC bench's load driver in Go (tools/media_plane_bench.py --driver pion),
// so that driving N talking calls takes a fraction of the CPU the aiortc driver takes on the engine's
// own machine. It opens -calls calls against POST {url}/v1/realtime/calls (an SDP offer with one
// sendrecv Opus microphone and the oai-events data channel, as the aiortc driver's), and once each
// has its session.created, prints one JSON line {"ready": opened} and waits for a line on stdin. Then
// every call plays the same Opus packets (-packets: the question clip and 1 s of silence as the aiortc
// driver's microphone track encodes them, written by the bench: repeated {u16 length LE, payload}, one
// per 20 ms) in a loop on one shared 20 ms grid, all calls starting together, for at least -seconds
// (whole loops). A loop's onset is when its first packet went out plus -onset-ms; the delay to the
// first input_audio_buffer.speech_started received after that loop began (and before it ended) is
// reported as the aiortc driver reports it. The reply track is read and dropped (no decoding). Last
// line: {"opened", "onsets_ms", "onset_at_s", "cpu_s" (getrusage, the talking window), "wall_s"}:
// onset_at_s[i] is when onsets_ms[i] was measured (its speech_started arrived), in seconds since the
// calls began talking, so that a long level's onsets can be read minute by minute; then the calls
// close and the driver exits. Errors go to stderr. Built by build.sh (Debian's pion, GOPATH mode).
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pion/ice/v2"
	"github.com/pion/interceptor"
	"github.com/pion/rtp"
	"github.com/pion/webrtc/v3"
)

const (
	frameDuration = 20 * time.Millisecond
	rtpPerFrame   = 960 // 20 ms at Opus's 48 kHz RTP clock
	speechStarted = "input_audio_buffer.speech_started"
)

type call struct {
	pc      *webrtc.PeerConnection
	track   *webrtc.TrackLocalStaticRTP
	seq     uint16
	mu      sync.Mutex
	started []time.Time // when each speech_started arrived
	created chan struct{}
	once    sync.Once
}

func (c *call) onMessage(m webrtc.DataChannelMessage) {
	if !m.IsString {
		return
	}
	if bytes.Contains(m.Data, []byte(speechStarted)) || bytes.Contains(m.Data, []byte("session.created")) {
		var event struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(m.Data, &event) != nil {
			return
		}
		switch event.Type {
		case speechStarted:
			c.mu.Lock()
			c.started = append(c.started, time.Now())
			c.mu.Unlock()
		case "session.created":
			c.once.Do(func() { close(c.created) })
		}
	}
}

// firstStarted is the first speech_started received at or after since, and before until.
func (c *call) firstStarted(since, until time.Time) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, at := range c.started {
		if !at.Before(since) && at.Before(until) {
			return at, true
		}
	}
	return time.Time{}, false
}

func newAPI(loopbackOnly bool) (*webrtc.API, error) {
	m := &webrtc.MediaEngine{}
	if err := m.RegisterCodec(webrtc.RTPCodecParameters{
		RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2},
		PayloadType:        111,
	}, webrtc.RTPCodecTypeAudio); err != nil {
		return nil, err
	}
	ir := &interceptor.Registry{}
	if err := webrtc.ConfigureRTCPReports(ir); err != nil {
		return nil, err
	}
	s := webrtc.SettingEngine{}
	s.SetIncludeLoopbackCandidate(true)
	s.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	s.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	if loopbackOnly {
		s.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	}
	return webrtc.NewAPI(webrtc.WithMediaEngine(m), webrtc.WithInterceptorRegistry(ir), webrtc.WithSettingEngine(s)), nil
}

func open(api *webrtc.API, base, key string, timeout time.Duration) (*call, error) {
	pc, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return nil, err
	}
	c := &call{pc: pc, created: make(chan struct{})}
	fail := func(err error) (*call, error) {
		pc.Close()
		return nil, err
	}
	track, err := webrtc.NewTrackLocalStaticRTP(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2}, "audio", "driver")
	if err != nil {
		return fail(err)
	}
	c.track = track
	sender, err := pc.AddTrack(track)
	if err != nil {
		return fail(err)
	}
	go drain(func(b []byte) error { _, _, err := sender.Read(b); return err })
	pc.OnTrack(func(t *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		drain(func(b []byte) error { _, _, err := t.Read(b); return err })
	})
	dc, err := pc.CreateDataChannel("oai-events", nil)
	if err != nil {
		return fail(err)
	}
	dc.OnMessage(c.onMessage)
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		return fail(err)
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(offer); err != nil {
		return fail(err)
	}
	<-gathered
	request, err := http.NewRequest("POST", base+"/v1/realtime/calls", strings.NewReader(pc.LocalDescription().SDP))
	if err != nil {
		return fail(err)
	}
	request.Header.Set("Content-Type", "application/sdp")
	request.Header.Set("Authorization", "Bearer "+key)
	response, err := (&http.Client{Timeout: timeout}).Do(request)
	if err != nil {
		return fail(err)
	}
	answer, err := io.ReadAll(response.Body)
	response.Body.Close()
	if err != nil {
		return fail(err)
	}
	if response.StatusCode != http.StatusCreated {
		return fail(fmt.Errorf("POST /v1/realtime/calls: %d %s", response.StatusCode, answer))
	}
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: string(answer)}); err != nil {
		return fail(err)
	}
	select {
	case <-c.created:
		return c, nil
	case <-time.After(timeout):
		return fail(errors.New("no session.created"))
	}
}

func drain(read func([]byte) error) {
	buf := make([]byte, 1500)
	for read(buf) == nil {
	}
}

// readPackets reads the bench's packet file: repeated {u16 length LE, Opus payload}, one per 20 ms.
func readPackets(path string) ([][]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var packets [][]byte
	for len(data) >= 2 {
		n := int(binary.LittleEndian.Uint16(data))
		if len(data) < 2+n {
			return nil, errors.New("packet file truncated")
		}
		packets = append(packets, data[2:2+n])
		data = data[2+n:]
	}
	if len(packets) == 0 {
		return nil, errors.New("packet file holds no packets")
	}
	return packets, nil
}

func cpuSeconds() float64 {
	var usage syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &usage)
	return float64(usage.Utime.Nano()+usage.Stime.Nano()) / 1e9
}

func main() {
	base := flag.String("url", "http://127.0.0.1:8000", "the engine's base URL")
	key := flag.String("key", "sk-bench", "API key")
	calls := flag.Int("calls", 10, "calls to open")
	seconds := flag.Float64("seconds", 12, "talking time (whole loops of the packets)")
	packetsPath := flag.String("packets", "", "the packet file (see the top of driver.go)")
	onsetMs := flag.Float64("onset-ms", 0, "speech onset within the packets, ms")
	concurrency := flag.Int("open-concurrency", 4, "calls opened at once")
	// Without -stagger every call plays the clip from the same frame, so every call's speech ends in the
	// same 20 ms tick and the engine takes all their turns (commit, transcript, response, reply start) in
	// one batch: a stall every loop of the clip that no real crowd of callers makes (docs/cpu.md,
	// "Sixteenth pass"). With it call i starts i/calls of a loop in, spreading the turns over the loop.
	stagger := flag.Bool("stagger", false, "spread the calls' clip loops evenly over one loop")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("mockengine-pion-driver: ")
	packets, err := readPackets(*packetsPath)
	if err != nil {
		log.Fatal(err)
	}
	parsed, err := url.Parse(*base)
	if err != nil {
		log.Fatal(err)
	}
	host := parsed.Hostname()
	api, err := newAPI(host == "127.0.0.1" || host == "localhost" || host == "::1")
	if err != nil {
		log.Fatal(err)
	}
	var (
		mu     sync.Mutex
		opened []*call
		wg     sync.WaitGroup
		gate   = make(chan struct{}, *concurrency)
	)
	for i := 0; i < *calls; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			gate <- struct{}{}
			defer func() { <-gate }()
			c, err := open(api, strings.TrimRight(*base, "/"), *key, 30*time.Second)
			if err != nil {
				log.Print(err)
				return
			}
			mu.Lock()
			opened = append(opened, c)
			mu.Unlock()
		}()
	}
	wg.Wait()
	out := json.NewEncoder(os.Stdout)
	_ = out.Encode(map[string]int{"ready": len(opened)})
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // "go"

	cpuBefore, began := cpuSeconds(), time.Now()
	end := began.Add(time.Duration(*seconds * float64(time.Second)))
	loopFrames := len(packets)
	loopStarts := make([]time.Time, len(opened))
	onsets, onsetAt := []float64{}, []float64{}
	onset := time.Duration(*onsetMs * float64(time.Millisecond))
	loopDuration := time.Duration(loopFrames) * frameDuration
	offsets := make([]int, len(opened))
	if *stagger && len(opened) > 0 {
		for i := range offsets {
			offsets[i] = i * loopFrames / len(opened)
		}
	}
	for frame := 0; ; frame++ {
		due := began.Add(time.Duration(frame) * frameDuration)
		if wait := time.Until(due); wait > 0 {
			time.Sleep(wait)
		}
		for i, c := range opened {
			// a call's loop ended: its onset, measured within that loop (a call's first, partial loop
			// when staggered is not measured)
			if (frame+offsets[i])%loopFrames == 0 && !loopStarts[i].IsZero() {
				if at, ok := c.firstStarted(loopStarts[i], loopStarts[i].Add(loopDuration+frameDuration)); ok {
					onsets = append(onsets, float64(at.Sub(loopStarts[i].Add(onset)))/float64(time.Millisecond))
					onsetAt = append(onsetAt, at.Sub(began).Seconds())
				}
			}
		}
		if frame%loopFrames == 0 && frame > 0 && !due.Before(end) {
			break
		}
		for i, c := range opened {
			index := (frame + offsets[i]) % loopFrames
			if index == 0 {
				loopStarts[i] = time.Now()
			}
			c.seq++
			packet := &rtp.Packet{
				Header:  rtp.Header{Version: 2, PayloadType: 111, SequenceNumber: c.seq, Timestamp: uint32(frame * rtpPerFrame), Marker: frame == 0},
				Payload: packets[index],
			}
			_ = c.track.WriteRTP(packet)
		}
	}
	_ = out.Encode(map[string]interface{}{
		"opened": len(opened), "onsets_ms": onsets, "onset_at_s": onsetAt, "cpu_s": cpuSeconds() - cpuBefore,
		"wall_s": time.Since(began).Seconds(),
	})
	for _, c := range opened {
		_ = c.pc.Close()
	}
}
