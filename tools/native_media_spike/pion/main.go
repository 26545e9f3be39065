// pionbench: N WebRTC calls between two processes on loopback, Opus packet every 20 ms each way.
// server: answers offers posted to /offer; client: makes N offers. Both expose /stats.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"net/http"
	"encoding/binary"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/ice/v2"
	"github.com/pion/interceptor"
	"github.com/pion/webrtc/v3"
	"github.com/pion/webrtc/v3/pkg/media"
)

type call struct {
	pc      *webrtc.PeerConnection
	track   *webrtc.TrackLocalStaticSample
	rx      int64 // RTP packets received
	tx      int64
	id      uint32
	reply   chan []byte // the engine's frames for this call, oldest first (IPC mode)
	dcRx    int64
	dc      atomic.Value // *webrtc.DataChannel
	conn    int32
}

var (
	mu      sync.Mutex
	calls   []*call
	api     *webrtc.API
	payload []byte
	dcMsgs  = flag.Bool("dc", true, "send one data-channel message per second per call (client), echo it (server)")
	ipcPath = flag.String("ipc", "", "server: exchange Opus payloads with an engine over this Unix socket, batched per 20 ms tick")
	ipcConn net.Conn
	ipcMu   sync.Mutex
	ipcBuf  []byte
	udpMux  = flag.Int("mux", 0, "server: if >0, all calls share this one UDP port (ICE UDP mux)")
	allIf   = flag.Bool("allif", false, "gather on every interface, not only lo (to meet libnice, which leaves loopback out)")
	cpuProf = flag.String("cpuprofile", "", "write a CPU profile here on SIGTERM")
	plBytes = flag.Int("bytes", 80, "Opus payload bytes per 20 ms packet")
)

func newAPI(muxPort int) *webrtc.API {
	m := &webrtc.MediaEngine{}
	if err := m.RegisterDefaultCodecs(); err != nil {
		log.Fatal(err)
	}
	ir := &interceptor.Registry{}
	if err := webrtc.RegisterDefaultInterceptors(m, ir); err != nil {
		log.Fatal(err)
	}
	s := webrtc.SettingEngine{}
	s.SetIncludeLoopbackCandidate(true)
	s.SetInterfaceFilter(func(name string) bool { return *allIf || name == "lo" })
	s.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	s.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	if muxPort > 0 {
		mux, err := ice.NewMultiUDPMuxFromPort(muxPort, ice.UDPMuxFromPortWithInterfaceFilter(func(n string) bool { return n == "lo" }), ice.UDPMuxFromPortWithLoopback(), ice.UDPMuxFromPortWithNetworks(ice.NetworkTypeUDP4))
		if err != nil {
			log.Fatal(err)
		}
		s.SetICEUDPMux(mux)
	}
	return webrtc.NewAPI(webrtc.WithMediaEngine(m), webrtc.WithInterceptorRegistry(ir), webrtc.WithSettingEngine(s))
}

func newCall() *call {
	pc, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		log.Fatal(err)
	}
	c := &call{pc: pc, reply: make(chan []byte, 16)}
	tr, err := webrtc.NewTrackLocalStaticSample(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2}, "audio", "spike")
	if err != nil {
		log.Fatal(err)
	}
	c.track = tr
	sender, err := pc.AddTrack(tr)
	if err != nil {
		log.Fatal(err)
	}
	go func() { // drain RTCP so interceptors work
		b := make([]byte, 1500)
		for {
			if _, _, err := sender.Read(b); err != nil {
				return
			}
		}
	}()
	pc.OnTrack(func(t *webrtc.TrackRemote, r *webrtc.RTPReceiver) {
		b := make([]byte, 1500)
		if ipcConn != nil {
			for {
				p, _, err := t.ReadRTP()
				if err != nil {
					return
				}
				atomic.AddInt64(&c.rx, 1)
				ipcMu.Lock()
				var h [6]byte
				binary.LittleEndian.PutUint32(h[:4], c.id)
				binary.LittleEndian.PutUint16(h[4:], uint16(len(p.Payload)))
				ipcBuf = append(append(ipcBuf, h[:]...), p.Payload...)
				ipcMu.Unlock()
			}
		}
		for {
			if _, _, err := t.Read(b); err != nil {
				return
			}
			atomic.AddInt64(&c.rx, 1)
		}
	})
	pc.OnConnectionStateChange(func(s webrtc.PeerConnectionState) {
		if s == webrtc.PeerConnectionStateConnected {
			atomic.StoreInt32(&c.conn, 1)
		} else {
			atomic.StoreInt32(&c.conn, 0)
		}
	})
	mu.Lock()
	c.id = uint32(len(calls))
	calls = append(calls, c)
	mu.Unlock()
	return c
}

func onDC(c *call, dc *webrtc.DataChannel, echo bool) {
	dc.OnOpen(func() { c.dc.Store(dc) })
	dc.OnMessage(func(m webrtc.DataChannelMessage) {
		atomic.AddInt64(&c.dcRx, 1)
		if echo {
			dc.SendText(string(m.Data))
		}
	})
}

// one shared 20 ms grid for all calls, as the Python engine does
func sendLoop(client bool) {
	t := time.NewTicker(20 * time.Millisecond)
	n := 0
	for range t.C {
		n++
		if ipcConn != nil {
			ipcMu.Lock()
			batch := ipcBuf
			ipcBuf = make([]byte, 0, len(batch)+64)
			ipcMu.Unlock()
			var h [4]byte
			binary.LittleEndian.PutUint32(h[:], uint32(len(batch)))
			ipcConn.Write(append(h[:], batch...))
		}
		mu.Lock()
		cs := append([]*call(nil), calls...)
		mu.Unlock()
		for _, c := range cs {
			if atomic.LoadInt32(&c.conn) == 0 {
				continue
			}
			data := payload
			if ipcConn != nil {
				select {
				case data = <-c.reply:
				default:
					continue
				}
			}
			if c.track.WriteSample(media.Sample{Data: data, Duration: 20 * time.Millisecond}) == nil {
				atomic.AddInt64(&c.tx, 1)
			}
			if client && *dcMsgs && n%50 == 0 {
				if dc, ok := c.dc.Load().(*webrtc.DataChannel); ok {
					dc.SendText(`{"type":"input_audio_buffer.commit","n":` + fmt.Sprint(n) + `}`)
				}
			}
		}
	}
}

func statsHandler(w http.ResponseWriter, r *http.Request) {
	mu.Lock()
	cs := append([]*call(nil), calls...)
	mu.Unlock()
	var conn int
	rx := make([]int64, len(cs))
	dc := make([]int64, len(cs))
	tx := make([]int64, len(cs))
	for i, c := range cs {
		conn += int(atomic.LoadInt32(&c.conn))
		rx[i] = atomic.LoadInt64(&c.rx)
		dc[i] = atomic.LoadInt64(&c.dcRx)
		tx[i] = atomic.LoadInt64(&c.tx)
	}
	json.NewEncoder(w).Encode(map[string]interface{}{"calls": len(cs), "connected": conn, "rx": rx, "dc": dc, "tx": tx})
}

func main() {
	mode := flag.String("mode", "server", "server|client")
	n := flag.Int("n", 10, "client: calls")
	srv := flag.String("server", "127.0.0.1:8701", "server signalling addr")
	stats := flag.String("stats", "127.0.0.1:8702", "stats listen addr (client)")
	flag.Parse()
	if *cpuProf != "" {
		f, err := os.Create(*cpuProf)
		if err != nil {
			log.Fatal(err)
		}
		pprof.StartCPUProfile(f)
		go func() {
			ch := make(chan os.Signal, 1)
			signal.Notify(ch, syscall.SIGTERM)
			<-ch
			pprof.StopCPUProfile()
			os.Exit(0)
		}()
	}
	payload = make([]byte, *plBytes)
	payload[0] = 0xFC // Opus TOC: CELT FB 20 ms, one frame
	for i := 1; i < len(payload); i++ {
		payload[i] = byte(i * 37)
	}
	if *mode == "server" {
		api = newAPI(*udpMux)
		if *ipcPath != "" {
			conn, err := net.Dial("unix", *ipcPath)
			if err != nil {
				log.Fatal(err)
			}
			ipcConn = conn
			go ipcReader(conn)
		}
		go sendLoop(false)
		http.HandleFunc("/stats", statsHandler)
		http.HandleFunc("/offer", func(w http.ResponseWriter, r *http.Request) {
			var off webrtc.SessionDescription
			if err := json.NewDecoder(r.Body).Decode(&off); err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			c := newCall()
			c.pc.OnDataChannel(func(dc *webrtc.DataChannel) { onDC(c, dc, true) })
			if err := c.pc.SetRemoteDescription(off); err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			ans, _ := c.pc.CreateAnswer(nil)
			g := webrtc.GatheringCompletePromise(c.pc)
			c.pc.SetLocalDescription(ans)
			<-g
			json.NewEncoder(w).Encode(c.pc.LocalDescription())
		})
		log.Fatal(http.ListenAndServe(*srv, nil))
	}
	api = newAPI(0)
	go sendLoop(true)
	http.HandleFunc("/stats", statsHandler)
	go func() { log.Fatal(http.ListenAndServe(*stats, nil)) }()
	for i := 0; i < *n; i++ {
		c := newCall()
		dc, err := c.pc.CreateDataChannel("oai-events", nil)
		if err != nil {
			log.Fatal(err)
		}
		onDC(c, dc, false)
		off, _ := c.pc.CreateOffer(nil)
		g := webrtc.GatheringCompletePromise(c.pc)
		c.pc.SetLocalDescription(off)
		<-g
		body, _ := json.Marshal(c.pc.LocalDescription())
		resp, err := http.Post("http://"+*srv+"/offer", "application/json", bytes.NewReader(body))
		if err != nil {
			log.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var ans webrtc.SessionDescription
		if err := json.Unmarshal(b, &ans); err != nil {
			log.Fatalf("answer: %v %s", err, b)
		}
		if err := c.pc.SetRemoteDescription(ans); err != nil {
			log.Fatal(err)
		}
	}
	log.Printf("client: %d offers done", *n)
	select {}
}

// ipcReader takes the engine's reply batches: u32 length, then entries of u32 call id, u16 length, payload.
func ipcReader(conn net.Conn) {
	var h [4]byte
	for {
		if _, err := io.ReadFull(conn, h[:]); err != nil {
			log.Fatal(err)
		}
		b := make([]byte, binary.LittleEndian.Uint32(h[:]))
		if _, err := io.ReadFull(conn, b); err != nil {
			log.Fatal(err)
		}
		mu.Lock()
		cs := calls
		mu.Unlock()
		for len(b) >= 6 {
			id := binary.LittleEndian.Uint32(b)
			l := int(binary.LittleEndian.Uint16(b[4:]))
			if int(id) < len(cs) {
				select {
				case cs[id].reply <- b[6 : 6+l]:
				default: // more than 16 frames queued: drop
				}
			}
			b = b[6+l:]
		}
	}
}
