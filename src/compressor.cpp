#include <compressor.h>

#include <secp256k1.h>

#include <algorithm>

namespace {

bool IsP2PKH(const CScript& s)
{
    return s.size() == 25 && s[0] == OP_DUP && s[1] == OP_HASH160 && s[2] == 20 &&
           s[23] == OP_EQUALVERIFY && s[24] == OP_CHECKSIG;
}

bool IsP2SH(const CScript& s)
{
    return s.size() == 23 && s[0] == OP_HASH160 && s[1] == 20 && s[22] == OP_EQUAL;
}

bool IsCompressedP2PK(const CScript& s)
{
    return s.size() == 35 && s[0] == 33 && s[34] == OP_CHECKSIG && (s[1] == 0x02 || s[1] == 0x03);
}

bool IsUncompressedP2PK(const CScript& s)
{
    return s.size() == 67 && s[0] == 65 && s[66] == OP_CHECKSIG && s[1] == 0x04;
}

bool IsValidPublicKey(std::span<const unsigned char> key)
{
    secp256k1_pubkey parsed;
    return secp256k1_ec_pubkey_parse(secp256k1_context_static, &parsed, key.data(), key.size()) == 1;
}

} // namespace

uint64_t CompressAmount(uint64_t value)
{
    if (value == 0) return 0;
    unsigned zeros = 0;
    while (value % 10 == 0 && zeros < 9) {
        value /= 10;
        ++zeros;
    }
    if (zeros < 9) {
        const uint64_t last_digit = value % 10;
        value /= 10;
        return 1 + (value * 9 + last_digit - 1) * 10 + zeros;
    }
    return 1 + (value - 1) * 10 + 9;
}

uint64_t DecompressAmount(uint64_t compressed)
{
    if (compressed == 0) return 0;
    compressed -= 1;
    unsigned zeros = compressed % 10;
    compressed /= 10;
    uint64_t value;
    if (zeros < 9) {
        const uint64_t last_digit = compressed % 9 + 1;
        compressed /= 9;
        value = compressed * 10 + last_digit;
    } else {
        value = compressed + 1;
    }
    for (; zeros > 0; --zeros) value *= 10;
    return value;
}

bool CompressScript(const CScript& script, CompressedScript& out)
{
    // nSize, then the body: the bytes of the script that cannot be rebuilt.
    auto take = [&out](unsigned n_size, auto first, auto last) {
        out.assign(1, static_cast<unsigned char>(n_size));
        out.insert(out.end(), first, last);
        return true;
    };
    if (IsP2PKH(script)) return take(0, script.begin() + 3, script.begin() + 23);
    if (IsP2SH(script)) return take(1, script.begin() + 2, script.begin() + 22);
    if (IsCompressedP2PK(script)) return take(script[1], script.begin() + 2, script.begin() + 34);
    if (IsUncompressedP2PK(script) && IsValidPublicKey(std::span{script}.subspan(1, 65))) {
        const unsigned parity = script[65] & 1;
        return take(4 | parity, script.begin() + 2, script.begin() + 34);
    }
    return false;
}

bool DecompressScript(CScript& script, unsigned n_size, const CompressedScript& in)
{
    const unsigned body_size = GetSpecialScriptSize(n_size);
    if (body_size == 0 || in.size() < body_size) return false;
    const auto body = std::span{in}.first(body_size);
    switch (n_size) {
    case 0:
        script = {OP_DUP, OP_HASH160, 20};
        script.insert(script.end(), body.begin(), body.end());
        script.insert(script.end(), {OP_EQUALVERIFY, OP_CHECKSIG});
        return true;
    case 1:
        script = {OP_HASH160, 20};
        script.insert(script.end(), body.begin(), body.end());
        script.push_back(OP_EQUAL);
        return true;
    case 2:
    case 3:
        script = {33, static_cast<unsigned char>(n_size)};
        script.insert(script.end(), body.begin(), body.end());
        script.push_back(OP_CHECKSIG);
        return true;
    case 4:
    case 5: {
        // Only x and the parity of y were stored: recover y on the curve.
        std::array<unsigned char, 33> compressed;
        compressed[0] = static_cast<unsigned char>(n_size - 2);
        std::ranges::copy(body, compressed.begin() + 1);
        secp256k1_pubkey key;
        if (!secp256k1_ec_pubkey_parse(secp256k1_context_static, &key, compressed.data(), compressed.size())) {
            return false;
        }
        std::array<unsigned char, 65> full;
        size_t full_size = full.size();
        secp256k1_ec_pubkey_serialize(secp256k1_context_static, full.data(), &full_size, &key, SECP256K1_EC_UNCOMPRESSED);
        script = {65};
        script.insert(script.end(), full.begin(), full.end());
        script.push_back(OP_CHECKSIG);
        return true;
    }
    }
    return false;
}
