package journal

import "sync"

// Bus delivers events to subscribers in this process. Each published event
// gets an increasing sequence number so a window can tell what it missed.
// A subscriber that falls behind loses events rather than blocking writers;
// it can catch up from the store.
type Bus struct {
	mu   sync.Mutex
	seq  uint64
	subs map[chan Event]struct{}
}

// NewBus returns an empty bus.
func NewBus() *Bus { return &Bus{subs: map[chan Event]struct{}{}} }

// Publish numbers e and hands it to every subscriber that has room.
func (b *Bus) Publish(e Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	e.Seq = b.seq
	for ch := range b.subs {
		select {
		case ch <- e:
		default:
		}
	}
}

// Subscribe returns a channel of future events and a function that ends the
// subscription and closes the channel.
func (b *Bus) Subscribe(buffer int) (<-chan Event, func()) {
	ch := make(chan Event, buffer)
	b.mu.Lock()
	b.subs[ch] = struct{}{}
	b.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.subs, ch)
			b.mu.Unlock()
			close(ch)
		})
	}
}
