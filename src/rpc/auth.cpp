#include <rpc/auth.h>

#include <util/log.h>
#include <util/strencodings.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sys/stat.h>

namespace {

constexpr std::string_view BASE64_CHARS{"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"};

int Base64Value(char c)
{
    const auto pos = BASE64_CHARS.find(c);
    return pos == std::string_view::npos ? -1 : static_cast<int>(pos);
}

// The operating system's CSPRNG: this layer may not use crypto/random.h.
bool ReadUrandom(unsigned char* out, size_t size)
{
    std::ifstream urandom{"/dev/urandom", std::ios::binary};
    return urandom.read(reinterpret_cast<char*>(out), static_cast<std::streamsize>(size)).good();
}

} // namespace

bool GenerateAuthCookie(const std::filesystem::path& cookie_file, std::string& credentials_out)
{
    std::array<unsigned char, 32> secret;
    if (!ReadUrandom(secret.data(), secret.size())) {
        LogError("Unable to read /dev/urandom for the RPC authentication cookie");
        return false;
    }
    const std::string credentials = std::string{COOKIE_AUTH_USER} + ":" + HexStr(secret);

    std::filesystem::path temp_file = cookie_file;
    temp_file += ".tmp";
    // The umask makes the file owner-only from its creation; chmod afterwards
    // would leave a window in which others could read the secret.
    const mode_t old_umask = umask(0077);
    std::FILE* file = std::fopen(temp_file.c_str(), "wb");
    umask(old_umask);
    if (!file) {
        LogError("Unable to open cookie authentication file {} for writing", temp_file.string());
        return false;
    }
    const bool written = std::fwrite(credentials.data(), 1, credentials.size(), file) == credentials.size();
    const bool closed = std::fclose(file) == 0;
    std::error_code ec;
    if (written && closed) std::filesystem::permissions(temp_file, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write, ec);
    if (!written || !closed || ec) {
        LogError("Unable to write cookie authentication file {}", temp_file.string());
        std::filesystem::remove(temp_file, ec);
        return false;
    }
    std::filesystem::rename(temp_file, cookie_file, ec);
    if (ec) {
        LogError("Unable to rename cookie authentication file {} to {}: {}", temp_file.string(), cookie_file.string(), ec.message());
        std::filesystem::remove(temp_file, ec);
        return false;
    }
    LogInfo("Generated RPC authentication cookie {}", cookie_file.string());
    credentials_out = credentials;
    return true;
}

std::optional<std::string> ReadAuthCookie(const std::filesystem::path& cookie_file)
{
    std::ifstream file{cookie_file};
    if (!file.is_open()) return std::nullopt;
    std::string line;
    std::getline(file, line);
    if (file.bad()) return std::nullopt;
    return line;
}

void DeleteAuthCookie(const std::filesystem::path& cookie_file)
{
    std::error_code ec;
    std::filesystem::remove(cookie_file, ec);
    if (ec) LogWarning("Unable to remove random auth cookie file {}: {}", cookie_file.string(), ec.message());
}

std::string EncodeBase64(std::string_view data)
{
    std::string out;
    out.reserve((data.size() + 2) / 3 * 4);
    for (size_t i = 0; i < data.size(); i += 3) {
        const size_t left = data.size() - i;
        uint32_t group = static_cast<unsigned char>(data[i]) << 16;
        if (left > 1) group |= static_cast<unsigned char>(data[i + 1]) << 8;
        if (left > 2) group |= static_cast<unsigned char>(data[i + 2]);
        out += BASE64_CHARS[(group >> 18) & 63];
        out += BASE64_CHARS[(group >> 12) & 63];
        out += left > 1 ? BASE64_CHARS[(group >> 6) & 63] : '=';
        out += left > 2 ? BASE64_CHARS[group & 63] : '=';
    }
    return out;
}

std::optional<std::string> DecodeBase64(std::string_view text)
{
    if (text.size() % 4 != 0) return std::nullopt;
    std::string out;
    for (size_t i = 0; i < text.size(); i += 4) {
        const bool last = i + 4 == text.size();
        const int padding = last ? (text[i + 3] == '=') + (text[i + 2] == '=') : 0;
        // "x=y=" is not padding; only trailing '=' are.
        if (padding == 1 && text[i + 3] != '=') return std::nullopt;
        uint32_t group = 0;
        for (int j = 0; j < 4; ++j) {
            const int value = j >= 4 - padding ? 0 : Base64Value(text[i + j]);
            if (value < 0) return std::nullopt;
            group = (group << 6) | static_cast<uint32_t>(value);
        }
        out += static_cast<char>(group >> 16);
        if (padding < 2) out += static_cast<char>((group >> 8) & 0xff);
        if (padding < 1) out += static_cast<char>(group & 0xff);
    }
    return out;
}

bool TimingResistantEqual(std::string_view a, std::string_view b)
{
    if (b.empty()) return a.empty();
    // Runs over all of a whatever b's length, so the time depends only on
    // the length of the attempt, which the attacker knows anyway.
    size_t accumulator = a.size() ^ b.size();
    for (size_t i = 0; i < a.size(); ++i) {
        accumulator |= static_cast<unsigned char>(a[i]) ^ static_cast<unsigned char>(b[i % b.size()]);
    }
    return accumulator == 0;
}
