#ifndef CORECHECK_UNDO_H
#define CORECHECK_UNDO_H

// Adapts: Core's undo.h (CTxUndo, CBlockUndo), which coinsdb keeps in
// kernel/undo.h.
#include <kernel/undo.h>

#endif // CORECHECK_UNDO_H
