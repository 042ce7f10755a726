// samples/go/app.go: a Go server loop whose handler sometimes recurses deep
// enough that the goroutine's stack grows (issues 17, 19).  Go grows a stack
// by copying it and walking every frame by its return address: return
// probes must leave the stack alone, and pair each return with its call
// though the call's frame has moved.
//
// usage: app [N [wait|spawn|par]]   (default N: 10000)
// A worker goroutine calls handle(i) for i = 0..N-1; handle returns i*3, and
// every 1000th call (i%1000 == 999) it adds depth(2000), which recurses 2000
// frames (1 each) and so grows the stack.  Prints
// "app: N calls, args sum A, results sum R" (A = the sum of the i handle was
// called with) and exits 0 when R is right.  With "wait", it first prints
// "app: ready" and waits for a line on stdin (a test attaches meanwhile).
// With "spawn", each call is request(i) in a new goroutine (see request),
// which calls handle(i): the same output.  With "par", 8 goroutines call
// handle(i) for the i = k mod 8 each, at once, and then classify(i), which
// has several returns: the same output, then "app: classes sum C".
// With fd 3 open, states every return of handle, depth and classify, as
// ptap records them with `main?handle%return $retval i` (and depth's n,
// classify's and request's i) in normalized form ("main_handle__return: retval=R i=I");
// goroutines interleave: compare sorted.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"sync"
)

var (
	exMu sync.Mutex
	ex   *bufio.Writer // fd 3, or nil
)

// state writes one line on fd 3 when it is open.
func state(format string, a ...interface{}) {
	if ex == nil {
		return
	}
	exMu.Lock()
	fmt.Fprintf(ex, format, a...)
	exMu.Unlock()
}

// classify has several returns, one per class.
//
//go:noinline
func classify(i int) int {
	if i%7 == 0 {
		state("main_classify__return: retval=%d i=%d\n", 70, i)
		return 70
	}
	if i%5 == 0 {
		state("main_classify__return: retval=%d i=%d\n", 50, i)
		return 50
	}
	if i%2 == 0 {
		state("main_classify__return: retval=%d i=%d\n", 2, i)
		return 2
	}
	state("main_classify__return: retval=%d i=%d\n", 1, i)
	return 1
}

//go:noinline
func depth(n int) int {
	var pad [128]byte // a larger frame: the stack grows sooner

	if n == 0 {
		state("main_depth__return: retval=0 n=0\n")
		return 0
	}
	pad[n%len(pad)] = 1
	r := depth(n-1) + int(pad[n%len(pad)])
	state("main_depth__return: retval=%d n=%d\n", r, n)
	return r
}

//go:noinline
func handle(i int) int {
	r := i * 3
	if i%1000 == 999 {
		r += depth(2000)
	}
	state("main_handle__return: retval=%d i=%d\n", r, i)
	return r
}

// request serves one request in a goroutine of its own ("spawn"): its frame
// (16 KiB) is larger than a new goroutine's stack, so each call grows the
// stack in request's prologue, and Go then runs request from its entry again.
//
//go:noinline
func request(i int) int {
	var buf [16 << 10]byte

	buf[i%len(buf)] = 1
	r := handle(i) + int(buf[(i+1)%len(buf)])
	state("main_request__return: retval=%d i=%d\n", r, i)
	return r
}

func main() {
	n := 10000
	if len(os.Args) > 1 {
		var err error
		if n, err = strconv.Atoi(os.Args[1]); err != nil || n < 0 {
			fmt.Fprintln(os.Stderr, "usage: app [N [wait|spawn]]")
			os.Exit(2)
		}
	}
	mode := ""
	if len(os.Args) > 2 {
		mode = os.Args[2]
	}
	if f := os.NewFile(3, "fd3"); f != nil {
		if _, err := f.Stat(); err == nil {
			ex = bufio.NewWriter(f)
		}
	}
	if mode == "wait" {
		fmt.Println("app: ready")
		bufio.NewReader(os.Stdin).ReadString('\n')
	}
	done := make(chan [2]int)
	classes := 0
	if mode == "par" {
		go par(n, done, &classes)
	} else {
		go serial(n, mode, done)
	}
	got := <-done
	want := 3*got[0] + 2000*(n/1000)
	fmt.Printf("app: %d calls, args sum %d, results sum %d\n", n, got[0], got[1])
	if mode == "par" {
		fmt.Printf("app: classes sum %d\n", classes)
	}
	if ex != nil {
		ex.Flush()
	}
	if got[1] != want {
		fmt.Printf("app: results sum should be %d\n", want)
		os.Exit(1)
	}
}

// par: 8 goroutines at once, goroutine k calls handle(i) and classify(i) for i = k mod 8.
func par(n int, done chan [2]int, classes *int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	var args, sum int

	for k := 0; k < 8; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			var a, s, c int
			for i := k; i < n; i += 8 {
				a += i
				s += handle(i)
				c += classify(i)
			}
			mu.Lock()
			args, sum, *classes = args+a, sum+s, *classes+c
			mu.Unlock()
		}(k)
	}
	wg.Wait()
	done <- [2]int{args, sum}
}

// serial: one goroutine calls handle(i) (or request(i) in a new goroutine: "spawn") in turn.
func serial(n int, mode string, done chan [2]int) {
	var args, sum int

	for i := 0; i < n; i++ {
		args += i
		if mode == "spawn" {
			r := make(chan int)
			go func(i int) { r <- request(i) }(i)
			sum += <-r
		} else {
			sum += handle(i)
		}
	}
	done <- [2]int{args, sum}
}
