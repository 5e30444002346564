#ifndef COINSDB_PREVECTOR_H
#define COINSDB_PREVECTOR_H

// A vector of trivially copyable elements that keeps up to N of them inside
// itself and goes to the heap only beyond that. Scripts use it: nearly every
// output script is short, so a cached coin needs no allocation of its own.
//
// Layout (packed): a union of the N inline elements and {heap pointer, heap
// size, heap capacity}, then a tag: the size while the contents are inline,
// HEAP_TAG once they are on the heap. The tag is one byte when N < 255: a
// prevector<35, unsigned char> is 36 bytes, where a 32-bit size word beside
// the union would make it 39. Contents live inline exactly when the size
// fits there: growing past N moves them to the heap, shrinking back to N or
// less moves them home and frees the heap block, so a short value never
// holds one. Iterators are plain pointers and are invalidated by any change
// of size.

#include <algorithm>
#include <cassert>
#include <compare>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <new>
#include <type_traits>

#pragma pack(push, 1)
template <unsigned int N, typename T>
class prevector
{
    static_assert(std::is_trivially_copyable_v<T>, "elements are moved with memcpy");
    static_assert(N * sizeof(T) >= sizeof(T*) + 2 * sizeof(uint32_t), "the inline half must cover the heap half");

public:
    using value_type = T;
    using size_type = uint32_t;
    using difference_type = std::ptrdiff_t;
    using iterator = T*;
    using const_iterator = const T*;
    using reference = T&;
    using const_reference = const T&;
    // Elements held without a heap block (Core's name).
    static constexpr unsigned int STATIC_SIZE{N};

    prevector() = default;
    explicit prevector(size_type n) { resize(n); }
    prevector(size_type n, const T& value) { insert(end(), n, value); }
    template <std::input_iterator It>
    prevector(It first, It last)
    {
        insert(end(), first, last);
    }
    prevector(std::initializer_list<T> values) { insert(end(), values.begin(), values.end()); }

    prevector(const prevector& other) { insert(end(), other.begin(), other.end()); }
    prevector(prevector&& other) noexcept { StealFrom(other); }
    prevector& operator=(const prevector& other)
    {
        if (this != &other) assign(other.begin(), other.end());
        return *this;
    }
    prevector& operator=(prevector&& other) noexcept
    {
        if (this != &other) {
            FreeHeap();
            StealFrom(other);
        }
        return *this;
    }
    prevector& operator=(std::initializer_list<T> values)
    {
        assign(values.begin(), values.end());
        return *this;
    }
    ~prevector() { FreeHeap(); }

    size_type size() const { return OnHeap() ? m_data.heap.size : m_tag; }
    bool empty() const { return size() == 0; }
    size_type capacity() const { return OnHeap() ? m_data.heap.capacity : N; }
    // Heap bytes owned: zero while the contents are inline.
    size_t allocated_memory() const { return OnHeap() ? size_t{m_data.heap.capacity} * sizeof(T) : 0; }

    T* data() { return OnHeap() ? m_data.heap.ptr : m_data.direct; }
    const T* data() const { return OnHeap() ? m_data.heap.ptr : m_data.direct; }
    iterator begin() { return data(); }
    iterator end() { return data() + size(); }
    const_iterator begin() const { return data(); }
    const_iterator end() const { return data() + size(); }
    T& operator[](size_type i) { return data()[i]; }
    const T& operator[](size_type i) const { return data()[i]; }
    T& front() { return data()[0]; }
    const T& front() const { return data()[0]; }
    T& back() { return data()[size() - 1]; }
    const T& back() const { return data()[size() - 1]; }

    void clear() { Resize(0); }
    void resize(size_type n, const T& value = T{})
    {
        const size_type old = size();
        Resize(n);
        if (n > old) std::fill(begin() + old, end(), value);
    }
    // Only ever grows the heap block: inline contents stay inline.
    void reserve(size_type n)
    {
        if (n > capacity() && OnHeap()) MoveToHeap(n);
    }
    void shrink_to_fit()
    {
        if (OnHeap() && m_data.heap.capacity > size()) MoveToHeap(size());
    }

    void push_back(const T& value)
    {
        const T copy = value; // value may live in this vector
        const size_type old = size();
        Resize(old + 1);
        data()[old] = copy;
    }
    void pop_back() { Resize(size() - 1); }

    iterator insert(const_iterator pos, const T& value) { return insert(pos, size_type{1}, value); }
    // GCC 12 at -O2 sees a constant count larger than N filled into the
    // inline buffer, on a path OpenGap rules out (more than N elements
    // always live on the heap), and warns; the warning is off here only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
    iterator insert(const_iterator pos, size_type count, const T& value)
    {
        const T copy = value;
        const size_type at = Offset(pos);
        OpenGap(at, count);
        std::fill_n(data() + at, count, copy);
        return data() + at;
    }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
    template <std::input_iterator It>
    iterator insert(const_iterator pos, It first, It last)
    {
        const size_type at = Offset(pos);
        if constexpr (std::forward_iterator<It>) {
            const auto count = static_cast<size_type>(std::distance(first, last));
            if (count == 0) return data() + at;
            // The source may be this vector's own elements: copy it aside
            // only then, since opening the gap moves them.
            if constexpr (std::contiguous_iterator<It>) {
                const T* src = std::to_address(first);
                if (src >= data() && src < data() + size()) {
                    prevector copy(first, last);
                    return insert(pos, copy.begin(), copy.end());
                }
            }
            OpenGap(at, count);
            std::copy(first, last, data() + at);
            return data() + at;
        } else {
            size_type i = at;
            for (; first != last; ++first, ++i) insert(begin() + i, *first);
            return data() + at;
        }
    }
    iterator insert(const_iterator pos, std::initializer_list<T> values) { return insert(pos, values.begin(), values.end()); }

    iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
    iterator erase(const_iterator first, const_iterator last)
    {
        const size_type at = Offset(first);
        const size_type count = static_cast<size_type>(last - first);
        T* base = data();
        std::memmove(base + at, base + at + count, (size() - at - count) * sizeof(T));
        Resize(size() - count);
        return data() + at;
    }

    template <std::input_iterator It>
    void assign(It first, It last)
    {
        clear();
        insert(end(), first, last);
    }
    void assign(size_type n, const T& value)
    {
        clear();
        insert(end(), n, value);
    }

    void swap(prevector& other) noexcept
    {
        prevector tmp{std::move(other)};
        other = std::move(*this);
        *this = std::move(tmp);
    }

    friend bool operator==(const prevector& a, const prevector& b)
    {
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
    }
    friend auto operator<=>(const prevector& a, const prevector& b)
    {
        return std::lexicographical_compare_three_way(a.begin(), a.end(), b.begin(), b.end());
    }

private:
    // One byte whenever it can hold every inline size and one value more.
    using Tag = std::conditional_t<(N < std::numeric_limits<uint8_t>::max()), uint8_t, uint32_t>;
    static constexpr Tag HEAP_TAG = std::numeric_limits<Tag>::max();
    static_assert(N < HEAP_TAG);
    // The largest size, as before the tag shrank: sizes stay below 2^31.
    static constexpr size_type MAX_SIZE = (size_type{1} << 31) - 1;

    bool OnHeap() const { return m_tag == HEAP_TAG; }
    size_type Offset(const_iterator pos) const { return static_cast<size_type>(pos - data()); }

    void FreeHeap()
    {
        if (OnHeap()) std::free(m_data.heap.ptr);
    }

    // The whole union is copied, the unused inline tail included: a copy of
    // fixed size is a few register moves, one sized by the contents a call.
    // GCC's -O2 flags those tail bytes as maybe uninitialized; they are
    // never read.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
    void StealFrom(prevector& other)
    {
        std::memcpy(static_cast<void*>(&m_data), &other.m_data, sizeof(m_data));
        m_tag = other.m_tag;
        other.m_tag = 0;
    }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

    // Moves the contents into a heap block of `capacity` elements.
    void MoveToHeap(size_type capacity)
    {
        const size_type n = size();
        assert(capacity >= n && capacity <= MAX_SIZE);
        T* block = static_cast<T*>(std::malloc(size_t{capacity} * sizeof(T)));
        if (!block) throw std::bad_alloc{};
        std::memcpy(block, data(), n * sizeof(T));
        FreeHeap();
        // Inline contents, if that is where they were, are now overwritten.
        m_data.heap.ptr = block;
        m_data.heap.size = n;
        m_data.heap.capacity = capacity;
        m_tag = HEAP_TAG;
    }

    // Moves the first n (at most N) heap elements back inline.
    void MoveInline(size_type n)
    {
        T* block = m_data.heap.ptr;
        std::memcpy(m_data.direct, block, n * sizeof(T));
        std::free(block);
        m_tag = static_cast<Tag>(n);
    }

    // Sets the size, keeping [0, min(old, n)); new elements are left as
    // they are (callers fill them).
    void Resize(size_type n)
    {
        assert(n <= MAX_SIZE);
        if (n <= N) {
            if (OnHeap()) MoveInline(std::min(size(), n));
            m_tag = static_cast<Tag>(n);
            return;
        }
        if (n > capacity()) {
            // Grow geometrically from the heap, or jump straight to n when
            // leaving the inline buffer: a script is usually built once.
            MoveToHeap(OnHeap() ? std::max(n, capacity() + capacity() / 2) : n);
        }
        m_data.heap.size = n;
    }

    // Makes room for `count` elements at `at`, shifting the tail.
    void OpenGap(size_type at, size_type count)
    {
        const size_type old = size();
        Resize(old + count);
        T* base = data();
        std::memmove(base + at + count, base + at, (old - at) * sizeof(T));
    }

    union Data {
        T direct[N];
        struct {
            T* ptr;
            uint32_t size;
            uint32_t capacity;
        } heap;
    } m_data;
    Tag m_tag{0};
};
#pragma pack(pop)

#endif // COINSDB_PREVECTOR_H
