#ifndef CORECHECK_SCRIPT_SCRIPT_H
#define CORECHECK_SCRIPT_SCRIPT_H

// Adapts: Core's script/script.h builds scripts: CScript's operator<< for
// an opcode or a data push, ToByteVector and CScriptID (Hash160 of a
// script). coinsdb's CScript is raw bytes it never builds (script.h there
// has Core's opcodetype, and nothing to build with), so the tests get these
// here.

#include_next <script/script.h>

#include <hash.h>
#include <uint256.h>

#include <cstdint>
#include <utility>
#include <vector>

inline CScript& operator<<(CScript& script, opcodetype op)
{
    script.push_back(static_cast<unsigned char>(op));
    return script;
}

// A data push with the shortest push opcode, as Core's CScript::operator<<.
inline CScript& operator<<(CScript& script, const std::vector<unsigned char>& data)
{
    const size_t n{data.size()};
    if (n < OP_PUSHDATA1) {
        script.push_back(static_cast<unsigned char>(n));
    } else if (n <= 0xff) {
        script.push_back(OP_PUSHDATA1);
        script.push_back(static_cast<unsigned char>(n));
    } else if (n <= 0xffff) {
        script.push_back(OP_PUSHDATA2);
        for (int i = 0; i < 2; ++i) script.push_back(static_cast<unsigned char>(n >> (8 * i)));
    } else {
        script.push_back(OP_PUSHDATA4);
        for (int i = 0; i < 4; ++i) script.push_back(static_cast<unsigned char>(n >> (8 * i)));
    }
    script.insert(script.end(), data.begin(), data.end());
    return script;
}

// The same on a temporary, for `CScript() << OP_DUP << ...`.
template <typename T>
CScript&& operator<<(CScript&& script, const T& item)
{
    static_cast<CScript&>(script) << item;
    return std::move(script);
}

template <typename T>
std::vector<unsigned char> ToByteVector(const T& in)
{
    return std::vector<unsigned char>(in.begin(), in.end());
}

class CScriptID : public uint160
{
public:
    CScriptID() = default;
    explicit CScriptID(const CScript& script) : uint160{Hash160(script)} {}
};

#endif // CORECHECK_SCRIPT_SCRIPT_H
