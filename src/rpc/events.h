#ifndef COINSDB_RPC_EVENTS_H
#define COINSDB_RPC_EVENTS_H

// Process-wide libevent setup, done once: locking for the server's
// cross-thread calls (event_base_once from worker threads), and libevent's
// own warnings routed to our debug log instead of stderr, where they would
// garble bitcoin-cli's output, and SIGPIPE ignored unless the program
// handles it. Call before creating any event_base.
void SetupLibevent();

#endif // COINSDB_RPC_EVENTS_H
