// samples/go/strs.go: Go's strings as ptap prints them (issue 21): a string
// argument is a pointer and a length, passed in two registers, and never
// NUL-terminated (here a slice of a longer string).
//
// usage: strs [N]   (default N: 3)
// Calls, for i = 0..N-1: query(q, i) with q the first 7 bytes of
// "query-I and more".  Prints "strs: N rounds, sum S" and exits 0 when S is
// right.  With fd 3 open, states each call as ptap records it with
// `main.query q n`.
package main

import (
	"fmt"
	"os"
	"strconv"
)

//go:noinline
func query(q string, n int) int {
	return len(q) + n + int(q[0])
}

func main() {
	n := 3
	if len(os.Args) > 1 {
		n, _ = strconv.Atoi(os.Args[1])
	}
	fd3 := os.NewFile(3, "fd3") // nil-safe: writes fail when fd 3 is not open
	sum, want := 0, 0
	for i := 0; i < n; i++ {
		full := fmt.Sprintf("query-%d and more", i)
		q := full[:7]
		if fd3 != nil {
			fmt.Fprintf(fd3, "main_query: q=\"%s\" n=%d\n", q, i)
		}
		sum += query(q, i)
		want += len(q) + i + 'q'
	}
	fmt.Printf("strs: %d rounds, sum %d\n", n, sum)
	if sum != want {
		os.Exit(1)
	}
}
