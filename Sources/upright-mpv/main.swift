import MPV

// mpv in a process of its own, for Upright's player: started and spoken to by it alone.
MPVHost.serve()
