#include <primitives/transaction.h>

std::string COutPoint::ToString() const
{
    return hash.GetHex().substr(0, 10) + ":" + std::to_string(n);
}
