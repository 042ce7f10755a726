// samples/go/strs.go: Go's strings and slices as ptap prints them, and the
// goroutine each call ran in (issue 21): a string argument is a pointer and
// a length, passed in two registers, and never NUL-terminated (here a slice
// of a longer string); a []int is a pointer, a length and a capacity.
//
// usage: strs [N]   (default N: 3)
// Calls, for i = 0..N-1, each round in a goroutine of its own (one after
// another): query(q, i) with q the first 7 bytes of "query-I and more",
// srv.Serve(q) (a method: main.(*Server).Serve), cut(q) (two results: "query"
// and 70), and total(xs) with the slice xs = {I, I+1, I+2}.  Prints "strs: N rounds, sum
// S" and exits 0 when S is right.  With fd 3 open, states each call as ptap
// records it with `main.query q n`, `main.(*Server).Serve q`,
// `main.cut%return ~r0 ~r1` and `main.total xs`, the goroutine's id
// (from runtime.Stack's "goroutine N [running]") last.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

//go:noinline
func query(q string, n int) int {
	return len(q) + n + int(q[0])
}

//go:noinline
func total(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}

// Server: a method on a pointer receiver, named main.(*Server).Serve
type Server struct {
	hits int
}

//go:noinline
func (s *Server) Serve(q string) int {
	s.hits++
	return len(q)
}

// cut: two results, a string (two registers) and an int (the next one)
//
//go:noinline
func cut(q string) (string, int) {
	return q[:5], len(q) * 10
}

// goid: the running goroutine's id, as its stack trace's first line says it
func goid() int {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	f := strings.Fields(strings.TrimPrefix(string(buf), "goroutine "))
	id, _ := strconv.Atoi(f[0])
	return id
}

func main() {
	n := 3
	if len(os.Args) > 1 {
		n, _ = strconv.Atoi(os.Args[1])
	}
	fd3 := os.NewFile(3, "fd3") // nil-safe: writes fail when fd 3 is not open
	sum, want := 0, 0
	srv := &Server{}
	for i := 0; i < n; i++ {
		done := make(chan int)
		go func(i int) {
			g := goid()
			full := fmt.Sprintf("query-%d and more", i)
			q := full[:7]
			if fd3 != nil {
				fmt.Fprintf(fd3, "main_query: q=\"%s\" n=%d goid=%d\n", q, i, g)
			}
			s := query(q, i)
			if fd3 != nil {
				fmt.Fprintf(fd3, "main_Server_Serve: q=\"%s\" goid=%d\n", q, g)
			}
			s += srv.Serve(q)
			head, l := cut(q)
			if fd3 != nil {
				fmt.Fprintf(fd3, "main_cut__return: ~r0=\"%s\" ~r1=%d goid=%d\n", head, l, g)
			}
			s += l - 70
			if fd3 != nil {
				fmt.Fprintf(fd3, "main_total: xs={[0]=%d, [1]=%d, [2]=%d} goid=%d\n",
					i, i+1, i+2, g)
			}
			done <- s + total([]int{i, i + 1, i + 2})
		}(i)
		sum += <-done
		want += len("query-0") + i + 'q' + 3*i + 3 + len("query-0")
	}
	fmt.Printf("strs: %d rounds, sum %d\n", n, sum)
	if sum != want {
		os.Exit(1)
	}
}
