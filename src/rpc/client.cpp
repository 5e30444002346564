#include <rpc/client.h>

#include <rpc/auth.h>
#include <rpc/events.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>

#include <memory>

namespace {

// libevent cannot wait forever; five years is as good.
constexpr int EFFECTIVELY_FOREVER_SECONDS{5 * 365 * 24 * 60 * 60};

void OnReply(evhttp_request* request, void* arg)
{
    auto& response = *static_cast<HTTPPostResponse*>(arg);
    // A null request, or status 0, means the request failed below HTTP; the
    // error callback has already said why, if libevent knew.
    if (!request) return;
    response.status = evhttp_request_get_response_code(request);
    if (evbuffer* input = evhttp_request_get_input_buffer(request)) {
        response.body.resize(evbuffer_get_length(input));
        evbuffer_copyout(input, response.body.data(), response.body.size());
    }
}

void OnError(evhttp_request_error error, void* arg)
{
    static_cast<HTTPPostResponse*>(arg)->transport_error = static_cast<int>(error);
}

struct BaseDeleter {
    void operator()(event_base* base) const { event_base_free(base); }
};
struct ConnectionDeleter {
    void operator()(evhttp_connection* connection) const { evhttp_connection_free(connection); }
};

} // namespace

HTTPPostResponse HTTPPost(const HTTPPostRequest& request)
{
    HTTPPostResponse response;
    SetupLibevent();
    std::unique_ptr<event_base, BaseDeleter> base{event_base_new()};
    if (!base) return response;
    // No DNS base: the name is resolved with a blocking getaddrinfo, which
    // is fine for a one-shot client.
    std::unique_ptr<evhttp_connection, ConnectionDeleter> connection{
        evhttp_connection_base_new(base.get(), nullptr, request.host.c_str(), request.port)};
    if (!connection) return response;
    evhttp_connection_set_timeout(connection.get(), request.timeout_seconds > 0 ? request.timeout_seconds : EFFECTIVELY_FOREVER_SECONDS);

    evhttp_request* http_request = evhttp_request_new(OnReply, &response);
    if (!http_request) return response;
    evhttp_request_set_error_cb(http_request, OnError);
    evkeyvalq* headers = evhttp_request_get_output_headers(http_request);
    evhttp_add_header(headers, "Host", request.host.c_str());
    evhttp_add_header(headers, "Connection", "close");
    evhttp_add_header(headers, "Content-Type", "application/json");
    if (!request.credentials.empty()) {
        evhttp_add_header(headers, "Authorization", ("Basic " + EncodeBase64(request.credentials)).c_str());
    }
    evbuffer_add(evhttp_request_get_output_buffer(http_request), request.body.data(), request.body.size());

    // The connection owns the request from here, also when this fails.
    if (evhttp_make_request(connection.get(), http_request, EVHTTP_REQ_POST, request.path.c_str()) != 0) return response;
    event_base_dispatch(base.get());
    return response;
}

std::string HTTPTransportErrorString(int code)
{
    switch (code) {
    case EVREQ_HTTP_TIMEOUT: return "timeout reached";
    case EVREQ_HTTP_EOF: return "EOF reached";
    case EVREQ_HTTP_INVALID_HEADER: return "error while reading header, or invalid header";
    case EVREQ_HTTP_BUFFER_ERROR: return "error encountered while reading or writing";
    case EVREQ_HTTP_REQUEST_CANCEL: return "request was canceled";
    case EVREQ_HTTP_DATA_TOO_LONG: return "response body is larger than allowed";
    }
    return "unknown";
}
