#include <consensus/merkle.h>

#include <crypto/sha256.h>

// A level's pairs are hashed in place, as one run of 64-byte inputs.
static_assert(sizeof(uint256) == uint256::SIZE, "a vector of uint256 must be contiguous hashes");

uint256 ComputeMerkleRoot(std::vector<uint256> leaves, bool* mutated)
{
    bool found_equal_siblings = false;
    while (leaves.size() > 1) {
        // Checked before the duplication below: the duplicated pair is equal by
        // construction and is the legitimate case.
        for (size_t i = 0; i + 1 < leaves.size(); i += 2) {
            if (leaves[i] == leaves[i + 1]) found_equal_siblings = true;
        }
        if (leaves.size() % 2 == 1) leaves.push_back(leaves.back());
        Sha256D64(leaves.front().data(), leaves.front().data(), leaves.size() / 2);
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
