#include <consensus/merkle.h>

#include <hash.h>

namespace {

// writer is reused for every pair of a tree (GetHash leaves it empty).
uint256 HashPair(HashWriter& writer, const uint256& left, const uint256& right)
{
    writer << left << right;
    return writer.GetHash();
}

} // namespace

uint256 ComputeMerkleRoot(std::vector<uint256> leaves, bool* mutated)
{
    bool found_equal_siblings = false;
    HashWriter writer;
    while (leaves.size() > 1) {
        // Checked before the duplication below: the duplicated pair is equal by
        // construction and is the legitimate case.
        for (size_t i = 0; i + 1 < leaves.size(); i += 2) {
            if (leaves[i] == leaves[i + 1]) found_equal_siblings = true;
        }
        if (leaves.size() % 2 == 1) leaves.push_back(leaves.back());
        for (size_t i = 0; i < leaves.size() / 2; ++i) {
            leaves[i] = HashPair(writer, leaves[2 * i], leaves[2 * i + 1]);
        }
        leaves.resize(leaves.size() / 2);
    }
    if (mutated) *mutated = found_equal_siblings;
    return leaves.empty() ? uint256{} : leaves.front();
}

uint256 BlockMerkleRoot(const CBlock& block, bool* mutated)
{
    std::vector<uint256> leaves;
    leaves.reserve(block.vtx.size());
    for (const CTransactionRef& tx : block.vtx) leaves.push_back(tx->GetHash());
    return ComputeMerkleRoot(std::move(leaves), mutated);
}

uint256 BlockWitnessMerkleRoot(const CBlock& block, bool* mutated)
{
    std::vector<uint256> leaves;
    leaves.reserve(block.vtx.size());
    for (const CTransactionRef& tx : block.vtx) {
        leaves.push_back(leaves.empty() ? uint256{} : tx->GetWitnessHash());
    }
    return ComputeMerkleRoot(std::move(leaves), mutated);
}
