#include "gpu/nvml.hpp"

#include <dlfcn.h>

#include <string>

namespace preflight::gpu {
namespace {

// NVML's ABI, as its public header declares it (no header here: only what is called).
using Return = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
using Device = void*;
struct Utilization {
  unsigned gpu, memory;
};
struct Memory {
  unsigned long long total, free, used;
};
constexpr unsigned kTemperatureGpu = 0;
constexpr unsigned kThresholdSlowdown = 1;  // NVML_TEMPERATURE_THRESHOLD_SLOWDOWN
constexpr unsigned kClockSm = 1, kClockMem = 2;
constexpr unsigned kEccUncorrected = 1, kEccVolatile = 0;
constexpr unsigned kNvlinkMaxLinks = 18;  // NVML_NVLINK_MAX_LINKS
constexpr Return kNotSupported = 3,
                 kInvalidArgument = 2;  // NVML_ERROR_NOT_SUPPORTED, _INVALID_ARGUMENT

template <typename F>
F symbol(void* handle, const char* name) {
  return reinterpret_cast<F>(dlsym(handle, name));
}

}  // namespace

struct Nvml::Api {
  Return (*init)() = nullptr;
  Return (*shutdown)() = nullptr;
  Return (*count)(unsigned*) = nullptr;
  Return (*by_index)(unsigned, Device*) = nullptr;
  Return (*by_pci)(const char*, Device*) = nullptr;
  Return (*index_of)(Device, unsigned*) = nullptr;
  Return (*utilization)(Device, Utilization*) = nullptr;
  Return (*memory)(Device, Memory*) = nullptr;
  Return (*temperature)(Device, unsigned, unsigned*) = nullptr;
  Return (*temperature_threshold)(Device, unsigned, unsigned*) = nullptr;
  Return (*power)(Device, unsigned*) = nullptr;
  Return (*clock)(Device, unsigned, unsigned*) = nullptr;
  Return (*throttle)(Device, unsigned long long*) = nullptr;
  Return (*ecc)(Device, unsigned, unsigned, unsigned long long*) = nullptr;
  Return (*width)(Device, unsigned*) = nullptr;
  Return (*max_width)(Device, unsigned*) = nullptr;
  Return (*gen)(Device, unsigned*) = nullptr;
  Return (*max_gen)(Device, unsigned*) = nullptr;
  Return (*nvlink_state)(Device, unsigned, int*) = nullptr;  // nvmlEnableState_t: 1 enabled
};

Nvml::Nvml(const std::string& library) {
  handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* e = dlerror();
    why_not_ = library + ": " + (e ? e : "cannot be loaded");
    return;
  }
  auto api = std::make_unique<Api>();
  api->init = symbol<decltype(api->init)>(handle_, "nvmlInit_v2");
  api->shutdown = symbol<decltype(api->shutdown)>(handle_, "nvmlShutdown");
  api->count = symbol<decltype(api->count)>(handle_, "nvmlDeviceGetCount_v2");
  api->by_index = symbol<decltype(api->by_index)>(handle_, "nvmlDeviceGetHandleByIndex_v2");
  api->by_pci = symbol<decltype(api->by_pci)>(handle_, "nvmlDeviceGetHandleByPciBusId_v2");
  api->index_of = symbol<decltype(api->index_of)>(handle_, "nvmlDeviceGetIndex");
  api->utilization = symbol<decltype(api->utilization)>(handle_, "nvmlDeviceGetUtilizationRates");
  api->memory = symbol<decltype(api->memory)>(handle_, "nvmlDeviceGetMemoryInfo");
  api->temperature = symbol<decltype(api->temperature)>(handle_, "nvmlDeviceGetTemperature");
  // Deprecated from Ada on in favour of field values, but still answered by Hopper's drivers;
  // where it is not, the limit is missing and the temperature is not judged against it.
  api->temperature_threshold =
      symbol<decltype(api->temperature_threshold)>(handle_, "nvmlDeviceGetTemperatureThreshold");
  api->power = symbol<decltype(api->power)>(handle_, "nvmlDeviceGetPowerUsage");
  api->clock = symbol<decltype(api->clock)>(handle_, "nvmlDeviceGetClockInfo");
  api->throttle =
      symbol<decltype(api->throttle)>(handle_, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!api->throttle)  // drivers before 535 have only the older name
    api->throttle =
        symbol<decltype(api->throttle)>(handle_, "nvmlDeviceGetCurrentClocksThrottleReasons");
  api->ecc = symbol<decltype(api->ecc)>(handle_, "nvmlDeviceGetTotalEccErrors");
  api->width = symbol<decltype(api->width)>(handle_, "nvmlDeviceGetCurrPcieLinkWidth");
  api->max_width = symbol<decltype(api->max_width)>(handle_, "nvmlDeviceGetMaxPcieLinkWidth");
  api->gen = symbol<decltype(api->gen)>(handle_, "nvmlDeviceGetCurrPcieLinkGeneration");
  api->max_gen = symbol<decltype(api->max_gen)>(handle_, "nvmlDeviceGetMaxPcieLinkGeneration");
  api->nvlink_state = symbol<decltype(api->nvlink_state)>(handle_, "nvmlDeviceGetNvLinkState");
  if (!api->init || !api->shutdown || !api->count || !api->by_index) {
    why_not_ = library + ": not NVML (nvmlInit_v2 or nvmlDeviceGetCount_v2 missing)";
    return;
  }
  if (const Return r = api->init(); r != 0) {
    why_not_ = library + ": nvmlInit_v2 failed with NVML error " + std::to_string(r);
    return;
  }
  api_ = std::move(api);
}

Nvml::~Nvml() {
  if (api_) api_->shutdown();
  if (handle_) dlclose(handle_);
}

unsigned Nvml::device_count() const {
  unsigned n = 0;
  if (!api_ || api_->count(&n) != 0) return 0;
  return n;
}

int Nvml::index_of_pci_bus(const std::string& bus_id) const {
  Device d = nullptr;
  unsigned index = 0;
  if (!api_ || !api_->by_pci || !api_->index_of || api_->by_pci(bus_id.c_str(), &d) != 0 ||
      api_->index_of(d, &index) != 0)
    return -1;
  return static_cast<int>(index);
}

GpuReading Nvml::read(unsigned index) const {
  GpuReading g;
  Device d = nullptr;
  if (!api_ || api_->by_index(index, &d) != 0) return g;
  auto get = [&](auto fn, auto... args) -> std::optional<double> {
    unsigned v = 0;
    if (fn && fn(d, args..., &v) == 0) return static_cast<double>(v);
    return std::nullopt;
  };
  if (Utilization u{}; api_->utilization && api_->utilization(d, &u) == 0) g.util = u.gpu / 100.0;
  if (Memory m{}; api_->memory && api_->memory(d, &m) == 0)
    g.mem_used = static_cast<double>(m.used);
  g.temp_c = get(api_->temperature, kTemperatureGpu);
  if (auto mw = get(api_->power)) g.power_w = *mw / 1000.0;
  g.sm_mhz = get(api_->clock, kClockSm);
  g.mem_mhz = get(api_->clock, kClockMem);
  if (unsigned long long bits = 0; api_->throttle && api_->throttle(d, &bits) == 0) {
    g.throttle = slowdown_bits(bits);
    g.power_capped = power_capped(bits);
  }
  if (unsigned long long n = 0; api_->ecc && api_->ecc(d, kEccUncorrected, kEccVolatile, &n) == 0)
    g.ecc_errors = static_cast<double>(n);
  g.pcie_width = get(api_->width);
  g.pcie_gen = get(api_->gen);
  g.pcie_max_width = get(api_->max_width);
  g.pcie_max_gen = get(api_->max_gen);
  g.slowdown_temp_c = get(api_->temperature_threshold, kThresholdSlowdown);
  return g;
}

int Nvml::active_nvlinks(unsigned index) const {
  Device d = nullptr;
  if (!api_ || !api_->nvlink_state || api_->by_index(index, &d) != 0) return -1;
  int active = 0;
  for (unsigned link = 0; link < kNvlinkMaxLinks; ++link) {
    int state = 0;
    const Return r = api_->nvlink_state(d, link, &state);
    if (r == kNotSupported || r == kInvalidArgument) continue;  // a GPU without that link
    if (r != 0) return -1;
    active += state == 1 ? 1 : 0;
  }
  return active;
}

std::optional<PcieLink> Nvml::pcie_link(unsigned index) const {
  Device d = nullptr;
  if (!api_ || api_->by_index(index, &d) != 0) return std::nullopt;
  PcieLink l;
  if (!api_->width || !api_->max_width || !api_->gen || !api_->max_gen ||
      api_->width(d, &l.width) != 0 || api_->max_width(d, &l.max_width) != 0 ||
      api_->gen(d, &l.gen) != 0 || api_->max_gen(d, &l.max_gen) != 0)
    return std::nullopt;
  return l;
}

}  // namespace preflight::gpu
