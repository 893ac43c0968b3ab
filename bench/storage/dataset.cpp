#include "storage/dataset.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "harness/run/idle_wait.hpp"
#include "preflight/common/sizes.hpp"
#include "preflight/common/usage_error.hpp"
#include "storage/engine.hpp"
#include "storage/pattern.hpp"

namespace preflight::storage {
namespace {

namespace fs = std::filesystem;
constexpr const char* kMarker = ".preflight-dataset";
constexpr std::size_t kWriteChunk = 1 << 20;

// Rank 0's message (empty: fine) on every rank; a non-empty one becomes a UsageError.
void agree(std::string message, const RankContext& ctx) {
  int length = ctx.is_root() ? static_cast<int>(message.size()) : 0;
  idle_bcast(&length, 1, MPI_INT, 0, ctx.world);  // rank 0 may be writing or checking files
  message.resize(static_cast<std::size_t>(length));
  MPI_Bcast(message.data(), length, MPI_CHAR, 0, ctx.world);
  if (length > 0) throw UsageError(message);
}

// The message of the lowest rank that has one, on every rank; empty when none has.
std::string first_error(const std::string& mine, const RankContext& ctx) {
  int me = mine.empty() ? ctx.size : ctx.rank, first = ctx.size;
  MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, ctx.world);
  if (first == ctx.size) return {};
  std::string message =
      ctx.rank == first ? fmt::format("rank {} ({}): {}", ctx.rank, ctx.host, mine) : std::string();
  int length = static_cast<int>(message.size());
  MPI_Bcast(&length, 1, MPI_INT, first, ctx.world);
  message.resize(static_cast<std::size_t>(length));
  MPI_Bcast(message.data(), length, MPI_CHAR, first, ctx.world);
  return message;
}

// The parts of a set a marker vouches for: rank files 0 .. rank_files-1, and a shared file
// written for shared_ranks ranks; none unless the marker says complete and the size and the
// pattern's version match (a set written by an older preflight, with no version, is written
// again rather than read as bad blocks).
struct WholeParts {
  int rank_files = 0;
  int shared_ranks = 0;
};

WholeParts whole_parts(const nlohmann::json& m, std::uint64_t bytes_per_rank) {
  if (m.value("state", "") != "complete" ||
      m.value("bytes_per_rank", std::uint64_t{0}) != bytes_per_rank ||
      m.value("pattern", 1) != kPatternVersion)
    return {};
  return {m.value("rank_files", 0), m.value("shared_ranks", 0)};
}

std::optional<nlohmann::json> read_marker_fd(int fd) {
  if (fd < 0) return std::nullopt;
  std::string text;
  struct stat st {};
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    char buffer[4096];
    for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;)
      text.append(buffer, static_cast<std::size_t>(n));
  }
  close(fd);
  try {
    auto j = nlohmann::json::parse(text);
    if (!j.is_object() || j.value("creator", "") != "preflight") return std::nullopt;
    return j;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

// The marker at `path`, never through a symbolic link; none unless it is a regular file
// preflight wrote.
std::optional<nlohmann::json> read_marker(const std::string& path) {
  return read_marker_fd(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
}

// Whether a name from a marker is a bare file name in the set (not "..", not a path).
bool bare_name(const std::string& name) {
  return !name.empty() && name.find('/') == std::string::npos && name != "." && name != "..";
}

// Why the file at `path` must not be used as a file of the set ("" when it may): a file of
// the set is a regular file this user owns, with no other hard link (lstat: a symbolic link
// is never followed). A missing file is fine when `missing_ok`.
std::string unsafe_file(const std::string& path, bool missing_ok) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0)
    return errno == ENOENT && missing_ok
               ? std::string()
               : fmt::format("cannot be examined ({})", std::strerror(errno));
  if (S_ISLNK(st.st_mode)) return "is a symbolic link";
  if (!S_ISREG(st.st_mode)) return "is not a regular file";
  if (st.st_uid != geteuid())
    return fmt::format("is owned by uid {}, not by this user (uid {})", st.st_uid, geteuid());
  if (st.st_nlink > 1) return fmt::format("has {} hard links", st.st_nlink);
  return {};
}

// Why the set directory at `path` must not be used ("" when it may): it must be a directory,
// not a symbolic link to one, that this user owns (lstat).
std::string unsafe_dir(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0)
    return fmt::format("cannot be examined ({})", std::strerror(errno));
  if (S_ISLNK(st.st_mode)) return "is a symbolic link";
  if (!S_ISDIR(st.st_mode)) return "is not a directory";
  if (st.st_uid != geteuid())
    return fmt::format("is owned by uid {}, not by this user (uid {})", st.st_uid, geteuid());
  return {};
}

// Opens a file of the set for writing without following a symbolic link: a missing one is
// created (O_EXCL), an existing one must be a regular file this user owns with one link (it
// is truncated when `truncate`). Returns the descriptor, or -1 and sets `error`.
int open_for_writing(const std::string& path, bool create, bool truncate, std::string& error) {
  int fd =
      create ? open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
  if (fd < 0 && (!create || errno == EEXIST))
    fd = open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    error = errno == ELOOP
                ? fmt::format(
                      "cannot open {} for writing: it is a symbolic link, which "
                      "preflight never follows",
                      path)
                : fmt::format("cannot open {} for writing: {}", path, std::strerror(errno));
    return -1;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink > 1) {
    error = fmt::format(
        "{} is not a regular file of this user's with one link; preflight does not write to it",
        path);
    close(fd);
    return -1;
  }
  if (truncate && ftruncate(fd, 0) != 0) {
    error = fmt::format("cannot truncate {}: {}", path, std::strerror(errno));
    close(fd);
    return -1;
  }
  return fd;
}

// Writes the marker through a temporary name and a rename, so it is never half written.
std::string write_marker(const std::string& path, const nlohmann::json& j) {
  const std::string tmp = path + ".tmp";
  const std::string text = j.dump(1) + "\n";
  // A stale temporary (or a link planted under its name) is unlinked, never written through.
  unlink(tmp.c_str());
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return fmt::format("cannot write {}: {}", tmp, std::strerror(errno));
  const bool ok =
      write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && fsync(fd) == 0;
  const int err = errno;
  close(fd);
  if (!ok) {
    unlink(tmp.c_str());
    return fmt::format("cannot write {}: {}", tmp, std::strerror(err));
  }
  if (rename(tmp.c_str(), path.c_str()) != 0)
    return fmt::format("cannot rename {}: {}", tmp, std::strerror(errno));
  return {};
}

// Test-only fault: PREFLIGHT_TEST_ENOSPC_AFTER=N makes writes fail with ENOSPC after N bytes.
std::uint64_t enospc_after() {
  const char* v = std::getenv("PREFLIGHT_TEST_ENOSPC_AFTER");
  return v != nullptr ? std::strtoull(v, nullptr, 10) : UINT64_MAX;
}

// Writes bytes [offset, offset + bytes) of `path` with file id's pattern; "" or an error.
// The file is created (or truncated) when `create`, else it must exist.
std::string write_pattern(const std::string& path, bool create, std::uint32_t file_id,
                          std::uint64_t offset, std::uint64_t bytes) {
  std::string error;
  const int fd = open_for_writing(path, create, create, error);
  if (fd < 0) return error;
  const std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(kWriteChunk, bytes));
  AlignedBuffer buffer = aligned_buffer(chunk);
  const std::uint64_t fault = enospc_after();
  for (std::uint64_t done = 0; done < bytes && error.empty();) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, bytes - done));
    fill_pattern(buffer.get(), n, file_id, offset + done);
    std::size_t put = 0;
    while (put < n) {
      ssize_t w;
      std::size_t want = n - put;
      if (fault != UINT64_MAX) want = std::min<std::uint64_t>(want, fault - (done + put));
      if (done + put >= fault) {
        w = -1;
        errno = ENOSPC;
      } else {
        w = pwrite(fd, buffer.get() + put, want, static_cast<off_t>(offset + done + put));
      }
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        error = fmt::format("writing {} at offset {}: {}", path, offset + done + put,
                            std::strerror(w < 0 ? errno : EIO));
        break;
      }
      put += static_cast<std::size_t>(w);
    }
    done += put;
  }
  if (error.empty() && fdatasync(fd) != 0)
    error = fmt::format("fdatasync {}: {}", path, std::strerror(errno));
  close(fd);
  return error;
}

std::string fs_name(long magic) {
  switch (static_cast<unsigned long>(magic)) {
    case 0xEF53:
      return "ext4";
    case 0x58465342:
      return "xfs";
    case 0x9123683E:
      return "btrfs";
    case 0x01021994:
      return "tmpfs";
    case 0x858458f6:
      return "ramfs";
    case 0x6969:
      return "nfs";
    case 0x0BD00BD0:
      return "lustre";
    case 0x47504653:
      return "gpfs";
    case 0x19830326:
      return "beegfs";
    case 0x00c36400:
      return "ceph";
    case 0x2fc12fc1:
      return "zfs";
    case 0x794c7630:
      return "overlayfs";
    case 0x65735546:
      return "fuse";
    default:
      return fmt::format("0x{:x}", static_cast<unsigned long>(magic));
  }
}

}  // namespace

Dataset::Dataset(DatasetSpec spec, const RankContext& ctx) : spec_(std::move(spec)), ctx_(ctx) {}

Dataset::~Dataset() {
  if (!prepared_ || spec_.keep) return;
  remove_files(ctx_.is_root());
}

std::string Dataset::set_dir() const {
  return (fs::path(spec_.dir) / ("preflight-" + spec_.id)).string();
}
std::string Dataset::rank_file(int world_rank) const {
  return (fs::path(set_dir()) / fmt::format("rank-{:06d}.dat", world_rank)).string();
}
std::string Dataset::shared_file() const {
  return (fs::path(set_dir()) / "shared.dat").string();
}
std::string Dataset::marker() const {
  return (fs::path(set_dir()) / kMarker).string();
}

std::string fs_type_of(const std::string& path) {
  struct statfs s {};
  if (statfs(path.c_str(), &s) != 0) return "unknown";
  return fs_name(static_cast<long>(s.f_type));
}

std::string Dataset::fs_type() const {
  return fs_type_of(spec_.dir);
}

std::vector<std::string> Dataset::file_names() const {
  std::vector<std::string> names;
  if (spec_.per_rank_files)
    for (int r = 0; r < ctx_.size; ++r) names.push_back(fmt::format("rank-{:06d}.dat", r));
  if (spec_.shared_file) names.emplace_back("shared.dat");
  return names;
}

void Dataset::check(bool needs_eviction, bool needs_direct) const {
  std::string error;
  if (ctx_.is_root())
    [&] {
      const std::string& dir = spec_.dir;
      struct stat st {};
      if (stat(dir.c_str(), &st) != 0) {
        error = fmt::format(
            "storage: dir '{}' does not exist ({}); create it, or set dir to a directory on the "
            "storage to measure",
            dir, std::strerror(errno));
        return;
      }
      if (!S_ISDIR(st.st_mode)) {
        error = fmt::format("storage: dir '{}' is not a directory", dir);
        return;
      }
      struct statvfs vfs {};
      if (access(dir.c_str(), W_OK | X_OK) != 0 ||
          (statvfs(dir.c_str(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY) != 0)) {
        error = fmt::format(
            "storage: cannot write to dir '{}' ({}); preflight writes its data set under it: "
            "choose a writable directory",
            dir, access(dir.c_str(), W_OK) != 0 ? std::strerror(errno) : "read-only file system");
        return;
      }
      const std::string type = fs_type();
      if ((type == "tmpfs" || type == "ramfs") && (needs_eviction || needs_direct)) {
        error = fmt::format(
            "storage: dir '{}' is on {} (memory): its pages cannot be evicted or read with "
            "O_DIRECT, so no read there is a storage read; choose a directory on a disk or "
            "parallel file system (or cache: warm to measure memory on purpose)",
            dir, type);
        return;
      }
      std::set<std::string> listed;
      WholeParts whole;
      struct stat set_st {};
      if (lstat(set_dir().c_str(), &set_st) == 0) {
        // Never through a link, never another user's: either could lead preflight to write,
        // truncate or remove files it did not create.
        if (S_ISLNK(set_st.st_mode)) {
          error = fmt::format(
              "storage: '{}' is a symbolic link; preflight never follows a link to its data set "
              "(it could lead to files preflight did not create): remove the link, or choose "
              "another dir or dataset id",
              set_dir());
          return;
        }
        const auto m = S_ISDIR(set_st.st_mode) ? read_marker(marker()) : std::nullopt;
        if (!m) {
          error = fmt::format(
              "storage: '{}' exists but was not created by preflight (no valid marker {}); "
              "preflight never overwrites files it did not create: remove it, or choose another "
              "dir or dataset id",
              set_dir(), kMarker);
          return;
        }
        if (set_st.st_uid != geteuid()) {
          error = fmt::format(
              "storage: '{}' is owned by uid {}, not by this user (uid {}); preflight only uses a "
              "data set directory it owns: remove it, or choose another dir or dataset id",
              set_dir(), set_st.st_uid, geteuid());
          return;
        }
        if (const auto why = unsafe_file(marker(), false); !why.empty()) {
          error = fmt::format(
              "storage: '{}' {}; preflight only trusts a marker that is a regular file it owns: "
              "remove '{}', or choose another dir or dataset id",
              marker(), why, set_dir());
          return;
        }
        for (const auto& f : m->value("files", std::vector<std::string>{})) {
          if (!bare_name(f)) {
            error = fmt::format(
                "storage: the marker of '{}' lists '{}', which is not a file name in the set; "
                "remove '{}', or choose another dir or dataset id",
                set_dir(), f, set_dir());
            return;
          }
          listed.insert(f);
        }
        // What preflight would read, write or remove there: only regular files it owns.
        std::set<std::string> used = listed;
        for (const auto& name : file_names()) used.insert(name);
        for (const auto& name : used) {
          const std::string path = (fs::path(set_dir()) / name).string();
          if (const auto why = unsafe_file(path, true); !why.empty()) {
            error = fmt::format(
                "storage: '{}' {}; preflight only reads, writes and removes regular files it "
                "owns in its data set: remove it, or choose another dir or dataset id",
                path, why);
            return;
          }
        }
        whole = whole_parts(*m, spec_.bytes_per_rank);
        for (const auto& name : file_names()) {
          struct stat file_st {};
          if (lstat((fs::path(set_dir()) / name).c_str(), &file_st) == 0 &&
              listed.count(name) == 0) {
            error = fmt::format(
                "storage: '{}' exists but its marker does not list it, so preflight did not "
                "create it and will not overwrite it: remove it, or choose another dir or dataset "
                "id",
                (fs::path(set_dir()) / name).string());
            return;
          }
        }
      } else if (errno != ENOENT) {
        error = fmt::format("storage: cannot examine '{}': {}", set_dir(), std::strerror(errno));
        return;
      }
      std::uint64_t needed = 0;
      const std::uint64_t all = spec_.bytes_per_rank * static_cast<std::uint64_t>(ctx_.size);
      if (spec_.per_rank_files && whole.rank_files < ctx_.size) needed += all;
      if (spec_.shared_file && whole.shared_ranks != ctx_.size) needed += all;
      if (statvfs(dir.c_str(), &vfs) == 0) {
        const std::uint64_t available = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
        if (needed > available)
          error = fmt::format(
              "storage: not enough free space in '{}' for the data set: it needs {} bytes ({}), "
              "{} bytes ({}) are available; free space, choose another dir, or read less (size: "
              "{} per rank x {} ranks)",
              dir, needed, format_bytes(needed), available, format_bytes(available),
              format_bytes(spec_.bytes_per_rank), ctx_.size);
      }
    }();
  agree(error, ctx_);
}

void Dataset::prepare() {
  if (prepared_) return;
  // Rank 0 decides what to write and marks the set incomplete before anything is written.
  std::string error;
  int write_ranks = 0, write_shared = 0;
  nlohmann::json m;
  if (ctx_.is_root())
    [&] {
      // Created private when missing; an existing one must still be what check() accepted.
      if (mkdir(set_dir().c_str(), 0700) != 0 && errno != EEXIST) {
        error = fmt::format("storage: cannot create '{}': {}", set_dir(), std::strerror(errno));
        return;
      }
      if (const auto why = unsafe_dir(set_dir()); !why.empty()) {
        error = fmt::format("storage: '{}' {}; preflight does not use it for its data set",
                            set_dir(), why);
        return;
      }
      const auto old = read_marker(marker());
      struct stat marker_st {};
      if (lstat(marker().c_str(), &marker_st) == 0 && !old) {
        error = fmt::format("storage: '{}' is not a preflight marker; not touching {}", marker(),
                            set_dir());
        return;
      }
      std::set<std::string> files;
      WholeParts whole;
      if (old) {
        for (const auto& f : old->value("files", std::vector<std::string>{}))
          if (bare_name(f)) files.insert(f);
        whole = whole_parts(*old, spec_.bytes_per_rank);
      }
      for (const auto& f : file_names()) files.insert(f);
      write_ranks = spec_.per_rank_files && whole.rank_files < ctx_.size;
      write_shared = spec_.shared_file && whole.shared_ranks != ctx_.size;
      // Until every write below has succeeded the marker vouches for nothing (state incomplete).
      m = {{"creator", "preflight"},
           {"about", "data set written by preflight's storage family; removed unless kept"},
           {"bytes_per_rank", spec_.bytes_per_rank},
           {"pattern", kPatternVersion},
           {"rank_files", write_ranks ? ctx_.size : whole.rank_files},
           {"shared_ranks", write_shared ? ctx_.size : whole.shared_ranks},
           {"files", std::vector<std::string>(files.begin(), files.end())},
           {"state", write_ranks || write_shared ? "incomplete" : "complete"}};
      if (write_ranks || write_shared) {
        error = write_marker(marker(), m);
        if (!error.empty()) return;
      }
      if (write_shared) {
        const int fd = open_for_writing(shared_file(), true, true, error);
        if (fd < 0) {
          error = "storage: " + error;
          return;
        }
        close(fd);
      }
    }();
  agree(error, ctx_);
  int flags[2] = {write_ranks, write_shared};
  MPI_Bcast(flags, 2, MPI_INT, 0, ctx_.world);
  write_ranks = flags[0];
  write_shared = flags[1];
  prepared_ = true;  // from here on, what was written is removed at the end unless kept

  std::string mine;
  struct stat set_st {};
  if (lstat(set_dir().c_str(), &set_st) != 0)
    mine = fmt::format(
        "cannot see '{}', which rank 0 created: dir must be one directory every rank sees (a "
        "shared file system)",
        set_dir());
  else if (const auto why = unsafe_dir(set_dir()); !why.empty())
    mine = fmt::format("'{}' {}; preflight does not use it for its data set", set_dir(), why);
  const std::uint64_t b = spec_.bytes_per_rank;
  if (mine.empty() && write_ranks)
    mine = write_pattern(rank_file(ctx_.rank), true, static_cast<std::uint32_t>(ctx_.rank), 0, b);
  if (mine.empty() && write_shared)
    mine = write_pattern(shared_file(), false, kSharedFileId,
                         b * static_cast<std::uint64_t>(ctx_.rank), b);
  const std::string failed = first_error(mine, ctx_);
  if (!failed.empty()) {
    // Half a data set must never be trusted: remove all of it (the marker last), so a later
    // run writes it again; were removal to fail, the marker still says incomplete.
    idle_barrier(ctx_.world);
    remove_files(ctx_.is_root());
    prepared_ = false;
    throw UsageError(fmt::format(
        "storage: preparing the data set in '{}' failed on {}; the partial data set was "
        "removed, a later run writes it again",
        set_dir(), failed));
  }
  idle_barrier(ctx_.world);  // every rank's part written
  if (ctx_.is_root() && (write_ranks || write_shared)) {
    m["state"] = "complete";
    error = write_marker(marker(), m);
  }
  agree(error, ctx_);
  complete_ = true;
}

void Dataset::mark_complete(bool complete) {
  if (complete == complete_) return;
  std::string error;
  if (ctx_.is_root()) {
    auto m = read_marker(marker());
    if (!m) {
      error = fmt::format("storage: the marker '{}' is gone or damaged; not touching {}", marker(),
                          set_dir());
    } else {
      (*m)["state"] = complete ? "complete" : "incomplete";
      error = write_marker(marker(), *m);
    }
  }
  agree(error, ctx_);
  complete_ = complete;
}

void Dataset::remove_files(bool everything) const {
  // Through the set directory itself, never a link to one, and only if this user owns it;
  // unlinkat removes a link, never what it points at.
  const int dir = open(set_dir().c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) return;
  struct stat st {};
  if (fstat(dir, &st) != 0 || st.st_uid != geteuid()) {
    close(dir);
    return;
  }
  unlinkat(dir, fmt::format("rank-{:06d}.dat", ctx_.rank).c_str(), 0);
  if (everything) {
    // Only what the marker lists, then the marker, then the directory if it is empty.
    if (const auto m = read_marker_fd(openat(dir, kMarker, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)))
      for (const auto& f : m->value("files", std::vector<std::string>{}))
        if (bare_name(f)) unlinkat(dir, f.c_str(), 0);
    unlinkat(dir, kMarker, 0);
    unlinkat(dir, (std::string(kMarker) + ".tmp").c_str(), 0);
  }
  close(dir);
  if (everything) rmdir(set_dir().c_str());  // fails, harmlessly, when something else is in it
}

}  // namespace preflight::storage
