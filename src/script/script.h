#ifndef COINSDB_SCRIPT_SCRIPT_H
#define COINSDB_SCRIPT_SCRIPT_H

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

constexpr size_t MAX_SCRIPT_SIZE = 10'000;
constexpr unsigned char OP_RETURN = 0x6a;

// A script as raw bytes. coinsdb never interprets scripts beyond recognising
// the shapes that script compression stores specially.
class CScript : public std::vector<unsigned char>
{
public:
    using std::vector<unsigned char>::vector;
    CScript() = default;
    explicit CScript(std::vector<unsigned char> bytes) : std::vector<unsigned char>(std::move(bytes)) {}

    // Provably unspendable outputs are never added to the UTXO set.
    bool IsUnspendable() const { return (!empty() && front() == OP_RETURN) || size() > MAX_SCRIPT_SIZE; }
};

#endif // COINSDB_SCRIPT_SCRIPT_H
