#include <primitives/block.h>

#include <hash.h>

uint256 CBlockHeader::GetHash() const
{
    HashWriter writer;
    Serialize(writer);
    return writer.GetHash();
}
