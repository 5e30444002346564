#ifndef COINSDB_NODE_BLOCKSTORAGE_CHAIN_H
#define COINSDB_NODE_BLOCKSTORAGE_CHAIN_H

#include <node/blockstorage/blockstorage.h>

#include <vector>

namespace node {

// The blocks of one chain by height, genesis at 0. Entries point into the
// BlockManager's index, which outlives every CChain.
class CChain
{
public:
    CBlockIndex* Tip() const { return m_chain.empty() ? nullptr : m_chain.back(); }
    CBlockIndex* Genesis() const { return m_chain.empty() ? nullptr : m_chain.front(); }
    // -1 when empty.
    int Height() const { return static_cast<int>(m_chain.size()) - 1; }
    CBlockIndex* operator[](int height) const
    {
        return height < 0 || height >= static_cast<int>(m_chain.size()) ? nullptr : m_chain[height];
    }
    bool Contains(const CBlockIndex* index) const { return index && (*this)[index->nHeight] == index; }
    // The block after index on this chain, or nullptr.
    CBlockIndex* Next(const CBlockIndex* index) const { return Contains(index) ? (*this)[index->nHeight + 1] : nullptr; }
    // The last block this chain shares with index's ancestry.
    const CBlockIndex* FindFork(const CBlockIndex* index) const
    {
        if (index && index->nHeight > Height()) index = index->GetAncestor(Height());
        while (index && !Contains(index)) index = index->pprev;
        return index;
    }
    // Makes index the tip, rebuilding the heights below it.
    void SetTip(CBlockIndex* index)
    {
        if (!index) {
            m_chain.clear();
            return;
        }
        m_chain.resize(index->nHeight + 1);
        while (index && m_chain[index->nHeight] != index) {
            m_chain[index->nHeight] = index;
            index = index->pprev;
        }
    }

private:
    std::vector<CBlockIndex*> m_chain;
};

} // namespace node

#endif // COINSDB_NODE_BLOCKSTORAGE_CHAIN_H
