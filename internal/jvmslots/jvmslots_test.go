package jvmslots

import (
	"os"
	"slices"
	"testing"
	"time"
)

// Two slots are taken at once; a third taker waits until one is freed.
func TestAcquireWaitsForAFreeSlot(t *testing.T) {
	dir := t.TempDir()
	first, err := Acquire(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Acquire(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if first.Name() == second.Name() {
		t.Fatalf("both takers hold %s", first.Name())
	}
	got := make(chan *os.File)
	go func() {
		f, err := Acquire(dir, 2)
		if err != nil {
			t.Error(err)
		}
		got <- f
	}()
	select {
	case f := <-got:
		f.Close()
		t.Fatal("a third taker got a slot while both were held")
	case <-time.After(3 * poll):
	}
	first.Close()
	select {
	case f := <-got:
		defer f.Close()
		if f.Name() != first.Name() {
			t.Errorf("the third taker holds %s, want the freed %s", f.Name(), first.Name())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the third taker never got the freed slot")
	}
}

// Within a process the heaviest waiter is served first, then the first
// to ask: with one slot held, waiters of weight 10, 50 and 50 (in that
// order) get it as it is freed in the order 50, 50, 10.
func TestHoldServesTheHeaviestFirst(t *testing.T) {
	dir := t.TempDir()
	held, err := Acquire(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	var q waiters
	got := make(chan int, 3)
	files := make(chan *os.File, 3)
	for i, w := range []int{10, 50, 50} {
		go func() {
			f, err := q.acquire(dir, 1, w)
			if err != nil {
				t.Error(err)
			}
			got <- i
			files <- f
		}()
		for { // each asks before the next
			q.mu.Lock()
			n := len(q.wait)
			q.mu.Unlock()
			if n == i+1 {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	held.Close()
	var order []int
	for range 3 {
		select {
		case i := <-got:
			order = append(order, i)
			(<-files).Close()
		case <-time.After(10 * time.Second):
			t.Fatalf("served %v, then nobody", order)
		}
	}
	if want := []int{1, 2, 0}; !slices.Equal(order, want) {
		t.Errorf("served in the order %v, want %v (weights 10, 50, 50)", order, want)
	}
}
