#include <rpc/json.h>

#include <cmath>
#include <iomanip>
#include <locale>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace {

using json = nlohmann::json;

void WriteEscaped(std::string_view text, std::string& out)
{
    static constexpr char HEX[] = "0123456789abcdef";
    out += '"';
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (byte < 0x20 || byte == 0x7f) {
                out += "\\u00";
                out += HEX[byte >> 4];
                out += HEX[byte & 0xf];
            } else {
                out += c;
            }
        }
    }
    out += '"';
}

std::string FormatDouble(double value)
{
    if (!std::isfinite(value)) return "null";
    std::ostringstream stream;
    stream.imbue(std::locale::classic());
    stream << std::setprecision(16) << value;
    return stream.str();
}

void WriteValue(const json& value, int indent, int level, std::string& out);

void NewLineAndIndent(int indent, int level, std::string& out)
{
    if (indent <= 0) return;
    out += '\n';
    out.append(static_cast<size_t>(indent) * level, ' ');
}

// Arrays and objects share the layout; only the member prefix differs.
void WriteContainer(const json& value, int indent, int level, std::string& out)
{
    const bool is_object = value.is_object();
    out += is_object ? '{' : '[';
    size_t remaining = value.size();
    for (auto it = value.begin(); it != value.end(); ++it) {
        NewLineAndIndent(indent, level + 1, out);
        if (is_object) {
            WriteEscaped(it.key(), out);
            out += indent > 0 ? ": " : ":";
        }
        WriteValue(*it, indent, level + 1, out);
        if (--remaining > 0) out += ',';
    }
    // UniValue breaks the line even for an empty container: "[\n]".
    if (indent > 0) NewLineAndIndent(indent, level, out);
    out += is_object ? '}' : ']';
}

void WriteValue(const json& value, int indent, int level, std::string& out)
{
    switch (value.type()) {
    case json::value_t::null: out += "null"; break;
    case json::value_t::boolean: out += value.get<bool>() ? "true" : "false"; break;
    case json::value_t::number_integer: out += std::to_string(value.get<int64_t>()); break;
    case json::value_t::number_unsigned: out += std::to_string(value.get<uint64_t>()); break;
    case json::value_t::number_float: out += FormatDouble(value.get<double>()); break;
    case json::value_t::string: WriteEscaped(value.get_ref<const std::string&>(), out); break;
    case json::value_t::array:
    case json::value_t::object: WriteContainer(value, indent, level, out); break;
    case json::value_t::binary:
        if (auto text = JSONRawNumberText(value)) {
            out += *text;
            break;
        }
        throw std::logic_error{"WriteJSON: binary values other than raw numbers have no JSON text"};
    case json::value_t::discarded: throw std::logic_error{"WriteJSON: discarded value"};
    }
}

// Builds a nlohmann value from SAX events; nlohmann's own parser loop is
// iterative, and so is this. The stack holds the open containers; each one
// is the last member of the one below it, so adding to the top never moves
// an entry of the stack. Returning false from an event stops the parse
// there, before anything deeper than MAX_JSON_DEPTH exists.
class JSONBuilder
{
public:
    JSONBuilder(json& root, JSONNumbers numbers, JSONParseError& error) : m_root{root}, m_numbers{numbers}, m_error{error} {}

    bool null() { return Add(nullptr); }
    bool boolean(bool value) { return Add(value); }
    bool number_integer(json::number_integer_t value) { return Add(value); }
    bool number_unsigned(json::number_unsigned_t value) { return Add(value); }
    bool number_float(json::number_float_t value, const json::string_t& text)
    {
        return Add(m_numbers == JSONNumbers::KEEP_TEXT ? JSONRawNumber(text) : json(value));
    }
    bool string(json::string_t& value) { return Add(std::move(value)); }
    bool binary(json::binary_t& value) { return Add(json::binary(std::move(value))); }
    bool start_object(std::size_t) { return Open(json::object()); }
    bool key(json::string_t& name)
    {
        if (m_stack.back()->contains(name)) {
            m_error.kind = JSONParseError::Kind::DUPLICATE_KEY;
            m_error.key = std::move(name);
            return false;
        }
        m_key = std::move(name);
        return true;
    }
    bool end_object() { return Close(); }
    bool start_array(std::size_t) { return Open(json::array()); }
    bool end_array() { return Close(); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&)
    {
        m_error.kind = JSONParseError::Kind::SYNTAX;
        return false;
    }

private:
    json* Place(json value)
    {
        if (m_stack.empty()) {
            m_root = std::move(value);
            return &m_root;
        }
        json& top = *m_stack.back();
        if (top.is_array()) {
            top.push_back(std::move(value));
            return &top.back();
        }
        json& slot = top[m_key];
        slot = std::move(value);
        return &slot;
    }
    bool Add(json value)
    {
        Place(std::move(value));
        return true;
    }
    bool Open(json container)
    {
        if (m_stack.size() >= MAX_JSON_DEPTH) {
            m_error.kind = JSONParseError::Kind::TOO_DEEP;
            return false;
        }
        m_stack.push_back(Place(std::move(container)));
        return true;
    }
    bool Close()
    {
        m_stack.pop_back();
        return true;
    }

    json& m_root;
    const JSONNumbers m_numbers;
    JSONParseError& m_error;
    std::vector<json*> m_stack;
    std::string m_key;
};

} // namespace

json JSONRawNumber(std::string_view text)
{
    const json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded() || !parsed.is_number()) {
        throw std::invalid_argument{"not a JSON number: " + std::string{text}};
    }
    return json::binary(std::vector<std::uint8_t>(text.begin(), text.end()), RAW_NUMBER_SUBTYPE);
}

std::optional<std::string> JSONRawNumberText(const json& value)
{
    if (!value.is_binary()) return std::nullopt;
    const auto& bytes = value.get_binary();
    if (!bytes.has_subtype() || bytes.subtype() != RAW_NUMBER_SUBTYPE) return std::nullopt;
    return std::string(bytes.begin(), bytes.end());
}

json ValueFromAmount(int64_t amount)
{
    constexpr uint64_t COIN{100'000'000};
    // Through uint64_t so that INT64_MIN has a magnitude too.
    const uint64_t magnitude = amount < 0 ? uint64_t{0} - static_cast<uint64_t>(amount) : static_cast<uint64_t>(amount);
    std::string fraction = std::to_string(magnitude % COIN);
    fraction.insert(0, 8 - fraction.size(), '0');
    return JSONRawNumber((amount < 0 ? "-" : "") + std::to_string(magnitude / COIN) + "." + fraction);
}

std::string WriteJSON(const json& value, int indent)
{
    std::string out;
    WriteValue(value, indent, 0, out);
    return out;
}

std::optional<json> ParseJSON(std::string_view text, JSONNumbers numbers, JSONParseError* error)
{
    json root;
    JSONParseError reason;
    JSONBuilder builder{root, numbers, reason};
    bool ok = false;
    try {
        ok = json::sax_parse(text, &builder);
    } catch (const std::exception&) {
        reason.kind = JSONParseError::Kind::SYNTAX;
    }
    if (ok) return root;
    if (error) *error = reason;
    return std::nullopt;
}

std::optional<json> ParseJSONKeepNumbers(std::string_view text) { return ParseJSON(text, JSONNumbers::KEEP_TEXT); }

namespace {

// nlohmann's type names (json::type_name()) as Core's UniValue names them.
std::optional<std::string> CoreTypeName(std::string_view nlohmann_name)
{
    if (nlohmann_name == "boolean") return "bool";
    // The only binary values are raw numbers.
    if (nlohmann_name == "number" || nlohmann_name == "binary") return "number";
    if (nlohmann_name == "null" || nlohmann_name == "string" || nlohmann_name == "array" || nlohmann_name == "object") {
        return std::string{nlohmann_name};
    }
    return std::nullopt;
}

} // namespace

std::string JSONTypeName(const nlohmann::json& value)
{
    return CoreTypeName(value.type_name()).value_or(value.type_name());
}

std::optional<std::string> JSONTypeErrorMessage(const nlohmann::json::type_error& e)
{
    // get<T>() throws type_error 302 with "... type must be <expected>, but is <actual>".
    if (e.id != 302) return std::nullopt;
    const std::string_view text{e.what()};
    constexpr std::string_view must{"type must be "}, but{", but is "};
    const size_t must_at = text.find(must);
    const size_t but_at = must_at == std::string_view::npos ? std::string_view::npos : text.find(but, must_at);
    if (but_at == std::string_view::npos) return std::nullopt;
    const auto expected = CoreTypeName(text.substr(must_at + must.size(), but_at - must_at - must.size()));
    const auto actual = CoreTypeName(text.substr(but_at + but.size()));
    if (!expected || !actual) return std::nullopt;
    return "JSON value of type " + *actual + " is not of expected type " + *expected;
}
