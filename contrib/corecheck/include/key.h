#ifndef CORECHECK_KEY_H
#define CORECHECK_KEY_H

// Adapts: Core's key.h, the part compress_tests uses: a random private key
// and its public key, compressed or not (adapters/key.cpp, libsecp256k1).

#include <pubkey.h>

#include <array>

class CKey
{
public:
    void MakeNewKey(bool compressed);
    bool IsValid() const { return m_valid; }
    CPubKey GetPubKey() const;

private:
    std::array<unsigned char, 32> m_secret{};
    bool m_compressed{true};
    bool m_valid{false};
};

CKey GenerateRandomKey(bool compressed = true) noexcept;

#endif // CORECHECK_KEY_H
