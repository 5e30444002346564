#ifndef COINSDB_CONSENSUS_MERKLE_H
#define COINSDB_CONSENSUS_MERKLE_H

#include <primitives/block.h>
#include <uint256.h>

#include <vector>

// Bitcoin's merkle tree over txids.
//
// Each level pairs neighbours (0,1), (2,3), ... and replaces every pair with
// SHA256d(left || right), both 32-byte hashes in internal order. A level with
// an odd count pairs its last hash with itself. The root of one leaf is the
// leaf; the root of none is the null hash.
//
// Duplicating the last hash means different leaf lists can share a root:
// [a, b, c] and [a, b, c, c] both give H(H(a,b), H(c,c)) (CVE-2012-2459).
// Every such collision needs a pair of equal siblings somewhere in the tree,
// so `mutated` reports whether any pair, at any level, held two equal hashes
// before the odd-count duplication. A block with a mutated tree must be
// rejected without marking its hash invalid, since the honest block with
// the same hash may exist.
uint256 ComputeMerkleRoot(std::vector<uint256> leaves, bool* mutated = nullptr);

// The merkle root over the block's txids (not wtxids).
uint256 BlockMerkleRoot(const CBlock& block, bool* mutated = nullptr);

// The BIP141 witness root: the same tree over wtxids, with the coinbase's
// leaf set to the null hash because the coinbase carries the commitment to
// this root and can't commit to its own wtxid. The coinbase output starting
// 6a 24 aa 21 a9 ed holds SHA256d(this root || the coinbase's single 32-byte
// witness item) after those six bytes.
uint256 BlockWitnessMerkleRoot(const CBlock& block, bool* mutated = nullptr);

#endif // COINSDB_CONSENSUS_MERKLE_H
