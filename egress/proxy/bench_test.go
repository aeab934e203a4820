package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"
)

// BenchmarkProxy measures what the proxy adds, on loopback, side by side
// in one run: connection set-up (a TCP connection that has carried one
// byte each way) directly and through CONNECT, b.N rounds interleaved,
// and the throughput of a 200 MB transfer directly, through CONNECT and
// as a plain HTTP proxy request, 7 rounds. It reports the medians and the
// targets (at most 2 ms more per connection; at least 70% of direct
// throughput):
//
//	go test ./egress/proxy -run '^$' -bench Proxy -benchtime 300x
func BenchmarkProxy(b *testing.B) {
	if b.N == 1 {
		return // the testing package's first, sizing run: pass -benchtime Nx
	}
	t := b
	echo := listen(t)
	defer echo.Close()
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	const size = 200 << 20
	bulk := listen(t)
	defer bulk.Close()
	go func() {
		buf := make([]byte, 256<<10)
		for {
			c, err := bulk.Accept()
			if err != nil {
				return
			}
			go func() {
				for left := size; left > 0; left -= len(buf) {
					if _, err := c.Write(buf[:min(left, len(buf))]); err != nil {
						break
					}
				}
				c.Close()
			}()
		}
	}()
	web := listen(t)
	defer web.Close()
	page := make([]byte, 1<<20)
	go http.Serve(web, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(size))
		for left := size; left > 0; left -= len(page) {
			if _, err := w.Write(page[:min(left, len(page))]); err != nil {
				return
			}
		}
	}))
	webPort := portOf(t, web.Addr())
	h := newHarness(t, policy(t, []string{"bench.test"}, nil, true), nil, hosts{"bench.test": {"127.0.0.1"}})
	h.s.o.Audit = func(Decision) {} // the bench measures the proxy, not the test's recorder
	echoPort, bulkPort := portOf(t, echo.Addr()), portOf(t, bulk.Addr())

	direct := func(port int) net.Conn {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	proxied := func(port int) net.Conn {
		c, err := net.Dial("tcp", h.httpURL.Host)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "CONNECT bench.test:%d HTTP/1.1\r\nHost: bench.test:%d\r\n\r\n", port, port)
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("CONNECT = %v, %v", resp, err)
		}
		return &bufferedConn{Conn: c, r: br}
	}
	setup := func(dial func(int) net.Conn) time.Duration {
		start := time.Now()
		c := dial(echoPort)
		b := []byte{1}
		c.Write(b)
		if _, err := io.ReadFull(c, b); err != nil {
			t.Fatal(err)
		}
		d := time.Since(start)
		c.Close()
		return d
	}
	buf := make([]byte, 1<<20)
	transfer := func(dial func(int) net.Conn) float64 {
		start := time.Now()
		c := dial(bulkPort)
		n := 0
		for {
			k, err := c.Read(buf)
			n += k
			if err != nil {
				break
			}
		}
		c.Close()
		if n != size {
			t.Fatalf("transfer read %d bytes", n)
		}
		return float64(n) / (1 << 20) / time.Since(start).Seconds()
	}

	var dSetup, pSetup []time.Duration
	b.ResetTimer()
	for r := range b.N {
		if r%2 == 0 {
			dSetup = append(dSetup, setup(direct))
			pSetup = append(pSetup, setup(proxied))
		} else {
			pSetup = append(pSetup, setup(proxied))
			dSetup = append(dSetup, setup(direct))
		}
	}
	b.StopTimer()
	// An HTTP request for the same 200 MB, directly (origin form) and as a
	// proxy request (absolute form), which the reverse proxy forwards.
	get := func(addr, target string) float64 {
		start := time.Now()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: bench.test:%d\r\nConnection: close\r\n\r\n", target, webPort)
		br := bufio.NewReaderSize(c, 1<<20)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			k, err := resp.Body.Read(buf)
			n += k
			if err != nil {
				break
			}
		}
		c.Close()
		if n != size {
			t.Fatalf("GET read %d bytes", n)
		}
		return float64(n) / (1 << 20) / time.Since(start).Seconds()
	}
	var dRate, pRate, dHTTP, pHTTP []float64
	// Each round takes the two paths in turn, the direct one first in
	// every other round, as the set-up rounds do.
	for r := range 7 {
		rounds := []func(){
			func() { dRate = append(dRate, transfer(direct)) },
			func() { pRate = append(pRate, transfer(proxied)) },
			func() { dHTTP = append(dHTTP, get("127.0.0.1:"+strconv.Itoa(webPort), "/")) },
			func() { pHTTP = append(pHTTP, get(h.httpURL.Host, fmt.Sprintf("http://bench.test:%d/", webPort))) },
		}
		if r%2 == 1 {
			rounds[0], rounds[1], rounds[2], rounds[3] = rounds[1], rounds[0], rounds[3], rounds[2]
		}
		for _, f := range rounds {
			f()
		}
	}
	ds, ps := median(dSetup), median(pSetup)
	dr, pr := median(dRate), median(pRate)
	dh, ph := median(dHTTP), median(pHTTP)
	b.ReportMetric(ms(ps-ds), "connect-added-ms")
	b.ReportMetric(100*pr/dr, "connect-throughput-%")
	b.ReportMetric(100*ph/dh, "http-throughput-%")
	b.ReportMetric(0, "ns/op")
	b.Logf("connection set-up, median of %d: direct %.3f ms, through CONNECT %.3f ms: %+.3f ms (target at most +2 ms: %s)",
		b.N, ms(ds), ms(ps), ms(ps-ds), verdict(ps-ds <= 2*time.Millisecond))
	b.Logf("200 MB, median of 7: direct %.0f MB/s, through CONNECT %.0f MB/s: %.0f%% (target at least 70%%: %s)", dr, pr, 100*pr/dr, verdict(pr >= 0.7*dr))
	b.Logf("200 MB HTTP GET, median of 7: direct %.0f MB/s, as a proxy request %.0f MB/s: %.0f%% (target at least 70%%: %s)", dh, ph, 100*ph/dh, verdict(ph >= 0.7*dh))
}

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "NOT MET"
}

func median[T int64 | float64 | time.Duration](v []T) T {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
