import CMalloc
import MPV

// mpv in a process of its own, for Upright's player: started and spoken to by it alone.
// glibc's arenas capped at two, as in `upright` itself: mpv's dozen threads each kept an arena
// of their own, and its resident memory grew by them (`make bench`'s soak).
mallopt(M_ARENA_MAX, 2)
MPVHost.serve()
