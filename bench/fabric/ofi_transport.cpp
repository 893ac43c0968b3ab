// The libfabric transport: reliable-datagram (FI_EP_RDM) endpoints of one provider and domain,
// messages (FI_MSG) between world ranks whose addresses are exchanged through MPI. The only
// user of libfabric.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include <sched.h>
#include <algorithm>

#include <cstring>
#include <deque>
#include <stdexcept>

#include "fabric/ofi_library.hpp"
#include "fabric/transport.hpp"
#include "preflight/common/usage_error.hpp"

namespace preflight::fabric {
namespace {

constexpr std::uint32_t kApiVersion = FI_VERSION(1, 9);
constexpr std::size_t kMaxAddressBytes = 256;
constexpr int kSpinsBeforeYield = 64;

char* copy_of(const std::string& s) {
  return s.empty() ? nullptr : strdup(s.c_str());
}

// The hints every query uses: RDM endpoints that send and receive messages, memory
// registration in any of the modes a verbs- or EFA-like provider asks for.
fi_info* rdm_hints(const OfiLibrary& lib, const TransportOptions& o) {
  fi_info* hints = lib.allocinfo();
  hints->ep_attr->type = FI_EP_RDM;
  hints->caps = FI_MSG;
  hints->mode = FI_CONTEXT;
  hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
  hints->domain_attr->threading = FI_THREAD_DOMAIN;
  hints->fabric_attr->prov_name = copy_of(o.provider);
  hints->domain_attr->name = copy_of(o.domain);
  return hints;
}

// The first matching provider, or nullptr (and libfabric's reason in `why`).
fi_info* query(const OfiLibrary& lib, const TransportOptions& o, std::string& why) {
  fi_info* hints = rdm_hints(lib, o);
  fi_info* info = nullptr;
  const char* node = o.address.empty() ? nullptr : o.address.c_str();
  const int rc = lib.getinfo(kApiVersion, node, nullptr, node ? FI_SOURCE : 0, hints, &info);
  lib.freeinfo(hints);
  if (rc != 0) {
    why = lib.strerror(-rc);
    return nullptr;
  }
  return info;
}

// Every RDM provider here: "tcp;ofi_rxm 1.17 (domain lo)", each once.
std::vector<std::string> available(const OfiLibrary& lib) {
  std::string why;
  fi_info* all = query(lib, {}, why);
  std::vector<std::string> out;
  for (fi_info* i = all; i != nullptr; i = i->next) {
    const auto v = i->fabric_attr->prov_version;
    auto line = fmt::format("{} {}.{} (domain {})", i->fabric_attr->prov_name, FI_MAJOR(v),
                            FI_MINOR(v), i->domain_attr->name);
    if (std::find(out.begin(), out.end(), line) == out.end()) out.push_back(std::move(line));
  }
  if (all != nullptr) lib.freeinfo(all);
  return out;
}

// libfabric's version as "1.17".
std::string version_of(const OfiLibrary& lib) {
  const std::uint32_t v = lib.version();
  return fmt::format("{}.{}", FI_MAJOR(v), FI_MINOR(v));
}

// The library, or the UsageError that names the fix where it cannot be loaded.
OfiLibrary loaded_ofi_library() {
  OfiLibrary lib = open_ofi_library();
  if (!lib.available())
    throw UsageError(
        fmt::format("transport: ofi needs libfabric, which cannot be loaded here ({}); install it "
                    "(Debian: libfabric1) or put it on LD_LIBRARY_PATH, or use --transport mpi",
                    lib.why_not));
  return lib;
}

void check(const OfiLibrary& lib, int rc, const char* what) {
  if (rc != 0) throw std::runtime_error(fmt::format("fabric: {}: {}", what, lib.strerror(-rc)));
}

class OfiTransport final : public Transport {
 public:
  explicit OfiTransport(const TransportOptions& o) : lib_(loaded_ofi_library()) {
    std::string why;
    info_ = query(lib_, o, why);
    if (info_ == nullptr) check_ofi(o);  // throws the UsageError
    check(lib_, lib_.fabric(info_->fabric_attr, &fabric_, nullptr), "fi_fabric");
    check(lib_, fi_domain(fabric_, info_, &domain_, nullptr), "fi_domain");
    fi_cq_attr cq_attr{};
    cq_attr.format = FI_CQ_FORMAT_CONTEXT;
    check(lib_, fi_cq_open(domain_, &cq_attr, &cq_, nullptr), "fi_cq_open");
    fi_av_attr av_attr{};
    av_attr.type = FI_AV_TABLE;
    check(lib_, fi_av_open(domain_, &av_attr, &av_, nullptr), "fi_av_open");
    check(lib_, fi_endpoint(domain_, info_, &ep_, nullptr), "fi_endpoint");
    check(lib_, fi_ep_bind(ep_, &cq_->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind cq");
    check(lib_, fi_ep_bind(ep_, &av_->fid, 0), "fi_ep_bind av");
    check(lib_, fi_enable(ep_), "fi_enable");
  }
  ~OfiTransport() override {
    for (fid_mr* mr : regions_) fi_close(&mr->fid);
    if (ep_ != nullptr) fi_close(&ep_->fid);
    if (av_ != nullptr) fi_close(&av_->fid);
    if (cq_ != nullptr) fi_close(&cq_->fid);
    if (domain_ != nullptr) fi_close(&domain_->fid);
    if (fabric_ != nullptr) fi_close(&fabric_->fid);
    if (info_ != nullptr) lib_.freeinfo(info_);
  }
  OfiTransport(const OfiTransport&) = delete;
  OfiTransport& operator=(const OfiTransport&) = delete;

  std::string_view name() const override { return "ofi"; }
  std::string provider() const override {
    return fmt::format("{} domain {}", info_->fabric_attr->prov_name, info_->domain_attr->name);
  }
  std::uint64_t max_message_bytes() const override { return info_->ep_attr->max_msg_size; }

  // Every rank inserts every rank's address in rank order: fi_addr r is world rank r.
  void connect(MPI_Comm world) override {
    std::vector<char> mine(kMaxAddressBytes, 0);
    std::size_t length = mine.size();
    check(lib_, fi_getname(&ep_->fid, mine.data(), &length), "fi_getname");
    int size = 0;
    MPI_Comm_size(world, &size);
    std::vector<char> all(kMaxAddressBytes * static_cast<std::size_t>(size));
    MPI_Allgather(mine.data(), static_cast<int>(kMaxAddressBytes), MPI_BYTE, all.data(),
                  static_cast<int>(kMaxAddressBytes), MPI_BYTE, world);
    addresses_.resize(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r)
      if (fi_av_insert(av_, all.data() + kMaxAddressBytes * static_cast<std::size_t>(r), 1,
                       &addresses_[static_cast<std::size_t>(r)], 0, nullptr) != 1)
        throw std::runtime_error(fmt::format("fabric: fi_av_insert of rank {} failed", r));
  }

  void register_buffer(void* buffer, std::size_t bytes) override {
    if ((info_->domain_attr->mr_mode & FI_MR_LOCAL) == 0) return;
    fid_mr* mr = nullptr;
    check(lib_,
          fi_mr_reg(domain_, buffer, bytes, FI_SEND | FI_RECV, 0, regions_.size(), 0, &mr, nullptr),
          "fi_mr_reg");
    regions_.push_back(mr);
    described_.push_back({static_cast<char*>(buffer), bytes, fi_mr_desc(mr)});
  }

  void post_send(const void* buffer, std::size_t bytes, int peer) override {
    post([&](fi_context* c) {
      return fi_send(ep_, buffer, bytes, desc(buffer), addresses_[static_cast<std::size_t>(peer)],
                     c);
    });
  }
  void post_recv(void* buffer, std::size_t bytes, int peer) override {
    post([&](fi_context* c) {
      return fi_recv(ep_, buffer, bytes, desc(buffer), addresses_[static_cast<std::size_t>(peer)],
                     c);
    });
  }
  void complete_all() override {
    for (int idle = 0; pending_ > 0;)
      if (progress()) {
        idle = 0;
      } else if (++idle >= kSpinsBeforeYield) {
        idle = 0;
        sched_yield();  // with more ranks than cores, spinning starves the peer (see progress)
      }
    contexts_.clear();
  }

 private:
  struct Described {
    char* start;
    std::size_t bytes;
    void* desc;
  };
  void* desc(const void* buffer) const {
    const char* p = static_cast<const char*>(buffer);
    for (const auto& d : described_)
      if (p >= d.start && p < d.start + d.bytes) return d.desc;
    return nullptr;
  }
  // Posts, reading completions while the provider has no room (-FI_EAGAIN).
  template <typename Post>
  void post(Post call) {
    contexts_.emplace_back();
    fi_context* c = &contexts_.back();  // a deque keeps it in place while it is in flight
    for (;;) {
      const ssize_t rc = call(c);
      if (rc == 0) break;
      if (rc != -FI_EAGAIN) check(lib_, static_cast<int>(rc), "posting a message");
      progress();
    }
    ++pending_;
  }
  // Reads completions; false when there were none. Providers progress inside fi_cq_read, so
  // a rank polls; as MPI does with mpi_yield_when_idle, it gives up its core after a while
  // without completions, or oversubscribed ranks (tests, emulated hosts) wait for their peer's
  // time slice on every message.
  bool progress() {
    fi_cq_entry entries[16];
    const ssize_t n = fi_cq_read(cq_, entries, 16);
    if (n > 0) {
      pending_ -= static_cast<std::size_t>(n);
      return true;
    }
    if (n == -FI_EAGAIN) return false;
    if (n == -FI_EAVAIL) {
      fi_cq_err_entry err{};
      fi_cq_readerr(cq_, &err, 0);
      throw std::runtime_error(
          fmt::format("fabric: a message failed: {}",
                      fi_cq_strerror(cq_, err.prov_errno, err.err_data, nullptr, 0)));
    }
    check(lib_, static_cast<int>(n), "fi_cq_read");
    return false;
  }

  OfiLibrary lib_;
  fi_info* info_ = nullptr;
  fid_fabric* fabric_ = nullptr;
  fid_domain* domain_ = nullptr;
  fid_cq* cq_ = nullptr;
  fid_av* av_ = nullptr;
  fid_ep* ep_ = nullptr;
  std::vector<fi_addr_t> addresses_;
  std::vector<fid_mr*> regions_;
  std::vector<Described> described_;
  std::deque<fi_context> contexts_;
  std::size_t pending_ = 0;
};

}  // namespace

void check_ofi(const TransportOptions& o) {
  const OfiLibrary lib = loaded_ofi_library();
  std::string why;
  fi_info* info = query(lib, o, why);
  if (info != nullptr) {
    lib.freeinfo(info);
    return;
  }
  const auto found = available(lib);
  const std::string what =
      o.domain.empty() ? fmt::format("provider '{}'", o.provider)
                       : fmt::format("provider '{}' with domain '{}'", o.provider, o.domain);
  throw UsageError(fmt::format(
      "provider: {}{} has no reliable-datagram endpoint here (libfabric {}: {}); RDM "
      "providers found: {}; pick one of them (e.g. --provider tcp), or use --transport mpi",
      what, o.address.empty() ? "" : fmt::format(" on address {}", o.address), version_of(lib), why,
      found.empty() ? std::string("none") : fmt::format("{}", fmt::join(found, ", "))));
}

std::unique_ptr<Transport> make_ofi_transport(const TransportOptions& options) {
  return std::make_unique<OfiTransport>(options);
}

nlohmann::json ofi_inventory() {
  const OfiLibrary lib = open_ofi_library();
  if (!lib.available()) return {{"libfabric", "not available: " + lib.why_not}};
  return {{"libfabric", version_of(lib)}, {"providers_found", available(lib)}};
}

}  // namespace preflight::fabric
