#include <node/init/datadir_check.h>

#include <kernel/chainparams.h>

#include <fmt/format.h>

#include <array>
#include <fstream>
#include <string_view>
#include <system_error>

namespace node {
namespace {

constexpr std::array<std::string_view, 3> CHAIN_DATA{"blocks", "chainstate", "chainstate_snapshot"};
constexpr std::array<std::string_view, 13> CORE_DATA{"wallets", "wallet.dat", "database", "settings.json", "peers.dat",
                                                     "anchors.dat", "banlist.json", "banlist.dat", "mempool.dat",
                                                     "fee_estimates.dat", "indexes", "onion_v3_private_key", "i2p_private_key"};

constexpr std::array ALL_CHAINS{ChainType::MAIN, ChainType::TESTNET, ChainType::TESTNET4, ChainType::SIGNET, ChainType::REGTEST};

bool Holds(const std::filesystem::path& path)
{
    std::error_code ec;
    const auto status = std::filesystem::symlink_status(path, ec);
    if (!ec) return status.type() != std::filesystem::file_type::not_found;
    // A parent that is a file holds nothing; any other failure to look is
    // treated as "there", so that doubt leads to a refusal.
    return ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory;
}

// An empty directory holds no one's data: an operator may prepare blocks/
// or chainstate/ before the first start, often as a symlink to another
// disk, which is followed here. Not chainstate_snapshot/: start-up takes an
// empty one for an unfinished snapshot load and deletes it. Anything that
// cannot be read, a dangling symlink included, is not empty.
bool IsEmptyDirectory(const std::filesystem::path& path, std::string_view name)
{
    if (name == "chainstate_snapshot") return false;
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec) || ec) return false;
    const bool empty = std::filesystem::is_empty(path, ec);
    return empty && !ec;
}

bool HoldsChainData(const std::filesystem::path& chain_dir, std::string_view name)
{
    const auto path = chain_dir / name;
    return Holds(path) && !IsEmptyDirectory(path, name);
}

bool HoldsChainData(const std::filesystem::path& chain_dir)
{
    for (const auto name : CHAIN_DATA) {
        if (HoldsChainData(chain_dir, name)) return true;
    }
    return false;
}

void FindInChainDir(const std::filesystem::path& datadir, const std::string& sub, std::vector<std::string>& found)
{
    const auto chain_dir = sub.empty() ? datadir : datadir / sub;
    const auto relative = [&](std::string_view name) { return sub.empty() ? std::string{name} : sub + "/" + std::string{name}; };
    if (!Holds(chain_dir / DATADIR_MARKER_FILE)) {
        for (const auto name : CHAIN_DATA) {
            if (HoldsChainData(chain_dir, name)) found.push_back(relative(name));
        }
    }
    for (const auto name : CORE_DATA) {
        if (Holds(chain_dir / name)) found.push_back(relative(name));
    }
}

} // namespace

std::vector<std::string> FindForeignData(const std::filesystem::path& datadir)
{
    std::vector<std::string> found;
    for (const ChainType chain : ALL_CHAINS) {
        FindInChainDir(datadir, CChainParams::ForChain(chain).DataDirName(), found);
    }
    return found;
}

std::string ForeignDataDirError(const std::filesystem::path& datadir, const std::vector<std::string>& entries)
{
    std::string list;
    for (const auto& entry : entries) list += (list.empty() ? "" : ", ") + entry;
    return fmt::format("The data directory {} holds data that coinsdb did not create ({}); it looks like Bitcoin Core's. "
                       "coinsdb does not verify scripts, yet Bitcoin Core would trust the block index and chainstate it "
                       "writes, so it leaves this directory alone. Use another -datadir, or start with "
                       "-allowforeigndatadir to use this one anyway.",
                       datadir.string(), list);
}

bool MarkNewChainDir(const std::filesystem::path& chain_dir, std::string& error)
{
    if (Holds(chain_dir / DATADIR_MARKER_FILE) || HoldsChainData(chain_dir)) return true;
    const auto path = chain_dir / DATADIR_MARKER_FILE;
    std::ofstream marker{path};
    marker << "coinsdb keeps this chain's data here. Without this file coinsdb takes blocks/ and chainstate/\n"
              "for another program's (Bitcoin Core's) and refuses to start.\n";
    marker.close();
    if (!marker) {
        error = "Cannot write " + path.string();
        return false;
    }
    return true;
}

} // namespace node
