#ifndef CORECHECK_SERIALIZE_H
#define CORECHECK_SERIALIZE_H

// Adapts: Core's VARINT(x) wrapper (serialize.h), which writes x in the
// VARINT format; coinsdb writes it with WriteVarInt. Writing only: the
// tests serialize VARINTs, they do not read them through the wrapper.

#include_next <serialize.h>

#include <cstdint>

namespace corecheck {
struct VarIntWriter {
    uint64_t value;
    template <typename Stream>
    void Serialize(Stream& s) const { WriteVarInt(s, value); }
};
} // namespace corecheck

#define VARINT(obj) (::corecheck::VarIntWriter{static_cast<uint64_t>(obj)})

#endif // CORECHECK_SERIALIZE_H
