// samples/go/app.go: a Go server loop whose handler sometimes recurses deep
// enough that the goroutine's stack grows (issue 17).  Go grows a stack by
// copying it and walking every frame by its return address, so a return
// address swapped for ptap's trampoline kills the program ("unknown caller
// pc"): ptap refuses `main?handle%return`; an entry probe is fine.
//
// usage: app [N [wait|spawn]]   (default N: 10000)
// A worker goroutine calls handle(i) for i = 0..N-1; handle returns i*3, and
// every 1000th call (i%1000 == 999) it adds depth(2000), which recurses 2000
// frames (1 each) and so grows the stack.  Prints
// "app: N calls, args sum A, results sum R" (A = the sum of the i handle was
// called with) and exits 0 when R is right.  With "wait", it first prints
// "app: ready" and waits for a line on stdin (a test attaches meanwhile).
// With "spawn", each call is request(i) in a new goroutine (see request),
// which calls handle(i): the same output.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
)

//go:noinline
func depth(n int) int {
	var pad [128]byte // a larger frame: the stack grows sooner

	if n == 0 {
		return 0
	}
	pad[n%len(pad)] = 1
	return depth(n-1) + int(pad[n%len(pad)])
}

//go:noinline
func handle(i int) int {
	r := i * 3
	if i%1000 == 999 {
		r += depth(2000)
	}
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
	return handle(i) + int(buf[(i+1)%len(buf)])
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
	if mode == "wait" {
		fmt.Println("app: ready")
		bufio.NewReader(os.Stdin).ReadString('\n')
	}
	done := make(chan [2]int)
	go func() {
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
	}()
	got := <-done
	want := 3*got[0] + 2000*(n/1000)
	fmt.Printf("app: %d calls, args sum %d, results sum %d\n", n, got[0], got[1])
	if got[1] != want {
		fmt.Printf("app: results sum should be %d\n", want)
		os.Exit(1)
	}
}
