// gpucap: atomic, hijack-proof output files (see output_file.hpp).
#include "gpucap/output_file.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <random>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpucap/detail/text.hpp"
#include "gpucap/input_file.hpp"
#include "gpucap/interrupt.hpp"

namespace gpucap {
namespace {

/// Longest part of the target's name kept in a temporary name (NAME_MAX is 255 bytes).
constexpr std::size_t kMaxBaseInTemporary = 200;

/// Closes a file descriptor when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      close();
      fd_ = o.fd_;
      o.fd_ = -1;
    }
    return *this;
  }
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  /// Closes now; returns close(2)'s result (a failed close can report a lost write, e.g. NFS).
  int close() {
    const int status = fd_ >= 0 ? ::close(fd_) : 0;
    fd_ = -1;
    return status;
  }

 private:
  int fd_;
};

/// The target split into its folder and its name inside it.
struct Target {
  std::string path;
  std::string folder;  ///< "." for a bare name
  std::string name;
};

std::string quoted(const std::string& path) { return "'" + text::excerpt(path, 300) + "'"; }

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw OutputError("cannot write " + quoted(path) + ": " + why);
}

Target split_target(const std::string& path) {
  if (path.empty()) throw OutputError("cannot write the output: its file name is empty");
  if (path.find('\0') != std::string::npos) fail(path, "a file name cannot hold a NUL byte");
  Target t{path, ".", path};
  const std::size_t slash = path.rfind('/');
  if (slash != std::string::npos) {
    t.folder = slash == 0 ? "/" : path.substr(0, slash);
    t.name = path.substr(slash + 1);
  }
  if (t.name.empty() || t.name == "." || t.name == "..")
    fail(path, "it names a folder; give a file name, e.g. results.h5");
  return t;
}

/// Opens the target's folder (following links in the folder's own path, as a user expects).
int open_folder(const Target& t) {
  const int fd = ::open(t.folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    fail(t.path, "its folder " + quoted(t.folder) + " cannot be opened: " + std::strerror(errno));
  return fd;
}

/// Refuses what the target may not be (see output_file.hpp, rule 1).
void check_target(const Target& t, int folder_fd, const OutputOptions& options) {
  struct stat link_st {};
  if (::fstatat(folder_fd, t.name.c_str(), &link_st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return;  // a new name
    fail(t.path, std::string("cannot inspect it: ") + std::strerror(errno));
  }
  if (S_ISLNK(link_st.st_mode)) {
    if (!options.force)
      fail(t.path,
           "it is a symbolic link; gpucap replaces only regular files (with --force it replaces "
           "the link itself, never the file it points to)");
  } else if (!S_ISREG(link_st.st_mode)) {
    fail(t.path, std::string("it is ") + file_type_name(link_st.st_mode) +
                     ", not a regular file; gpucap writes results only to regular files");
  }
  // The run's inputs: compared by identity (device, inode), so that no spelling, hard link
  // or symbolic link of an input gets past.
  struct stat target_st {};
  const bool target_exists = ::fstatat(folder_fd, t.name.c_str(), &target_st, 0) == 0;
  for (const std::string& input : options.inputs) {
    struct stat input_st {};
    if (::stat(input.c_str(), &input_st) != 0) continue;
    const bool same_as_link =
        link_st.st_dev == input_st.st_dev && link_st.st_ino == input_st.st_ino;
    const bool same_as_target =
        target_exists && target_st.st_dev == input_st.st_dev && target_st.st_ino == input_st.st_ino;
    if (same_as_link || same_as_target)
      fail(t.path, "it is " + quoted(input) +
                       ", an input of this run; choose another output name (no option allows "
                       "this)");
  }
}

/// Random lowercase hex digits for a temporary name.
std::string random_hex(std::size_t digits) {
  unsigned char bytes[16];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got < sizeof bytes) {  // no getrandom (old kernel): the C++ library's source instead
    std::random_device device;
    for (unsigned char& b : bytes) b = static_cast<unsigned char>(device());
  }
  static const char* const hex = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < digits && i / 2 < sizeof bytes; ++i)
    out += hex[(bytes[i / 2] >> ((i % 2) * 4)) & 0xF];
  return out;
}

/// Removes temporary files of earlier writes to this target whose writer no longer runs.
std::vector<std::string> remove_stale(const Target& t, int folder_fd) {
  std::vector<std::string> removed;
  const std::string prefix = temporary_prefix(t.name);
  const int scan_fd = ::openat(folder_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (scan_fd < 0) return removed;
  DIR* dir = ::fdopendir(scan_fd);
  if (dir == nullptr) {
    ::close(scan_fd);
    return removed;
  }
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.size() <= prefix.size() + 4 || name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - 4, 4, ".tmp") != 0)
      continue;
    // ".<name>.gpucap-<pid>-<random>.tmp"
    const std::string rest = name.substr(prefix.size());
    char* end = nullptr;
    const long pid = std::strtol(rest.c_str(), &end, 10);
    if (end == rest.c_str() || *end != '-' || pid <= 0) continue;
    if (pid == static_cast<long>(::getpid())) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // still running
    struct stat st {};
    if (::fstatat(folder_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) continue;  // only our own files
    if (::unlinkat(folder_fd, name.c_str(), 0) == 0)
      removed.push_back(t.folder == "." ? name : t.folder + "/" + name);
  }
  ::closedir(dir);
  return removed;
}

/// Writes all of `data`, retrying short writes and interruptions.
void write_all(int fd, const char* data, std::size_t size, const std::string& path) {
  std::size_t done = 0;
  while (done < size) {
    const std::size_t chunk = std::min<std::size_t>(size - done, std::size_t{1} << 24);
    const ssize_t n = ::write(fd, data + done, chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, std::string("writing the temporary file failed: ") + std::strerror(errno));
    }
    if (n == 0) fail(path, "writing the temporary file failed: the device accepted no data");
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

std::string temporary_prefix(const std::string& base) {
  return "." + base.substr(0, kMaxBaseInTemporary) + ".gpucap-";
}

namespace detail {

std::string temporary_name(const std::string& base) {
  return temporary_prefix(base) + std::to_string(::getpid()) + "-" + random_hex(16) + ".tmp";
}

int create_exclusive(int folder_fd, const std::string& name) {
  return ::openat(folder_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  0666);
}

}  // namespace detail

void check_output_path(const std::string& path, const OutputOptions& options) {
  const Target t = split_target(path);
  Fd folder(open_folder(t));
  check_target(t, folder.get(), options);
  if (::faccessat(folder.get(), ".", W_OK, AT_EACCESS) != 0)
    fail(path, "its folder " + quoted(t.folder) + " is not writable: " + std::strerror(errno));
}

OutputReport write_output_atomically(const std::string& path, const void* data, std::size_t size,
                                     const OutputOptions& options) {
  AtomicOutputFile file(path, options);
  file.write(data, size);
  return file.commit();
}

struct AtomicOutputFile::State {
  Target target;
  Fd folder;
  Fd file;
  std::string temporary;  ///< the temporary file's name inside the folder
  OutputOptions options;
  OutputReport report;
  bool open = false;  ///< the temporary file exists and is ours to remove
};

AtomicOutputFile::AtomicOutputFile(const std::string& path, const OutputOptions& options)
    : state_(new State) {
  State& s = *state_;
  s.target = split_target(path);
  s.options = options;
  s.folder = Fd(open_folder(s.target));
  check_target(s.target, s.folder.get(), options);
  s.report.removed_stale = remove_stale(s.target, s.folder.get());

  // The temporary file: an unpredictable name, created exclusively, never through a link.
  int fd = -1;
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    s.temporary = detail::temporary_name(s.target.name);
    fd = detail::create_exclusive(s.folder.get(), s.temporary);
    if (fd < 0 && errno != EEXIST)
      fail(path, "cannot create a temporary file in " + quoted(s.target.folder) + ": " +
                     std::strerror(errno));
  }
  if (fd < 0) fail(path, "cannot create a temporary file: 16 random names were all taken");
  s.file = Fd(fd);
  s.open = true;
  temporary_path_ =
      s.target.folder == "." ? s.temporary : s.target.folder + "/" + s.temporary;
  interrupt::set_temporary_file(temporary_path_.c_str());
}

AtomicOutputFile::~AtomicOutputFile() { abandon(); }

void AtomicOutputFile::abandon() noexcept {
  if (!state_ || !state_->open) return;
  interrupt::set_temporary_file(nullptr);
  state_->file.close();
  ::unlinkat(state_->folder.get(), state_->temporary.c_str(), 0);
  state_->open = false;
}

void AtomicOutputFile::write(const void* data, std::size_t size) {
  State& s = *state_;
  if (!s.open) fail(s.target.path, "the output was already finished");
  try {
    write_all(s.file.get(), static_cast<const char*>(data), size, s.target.path);
  } catch (...) {
    abandon();
    throw;
  }
}

OutputReport AtomicOutputFile::commit() {
  State& s = *state_;
  const std::string& path = s.target.path;
  if (!s.open) fail(path, "the output was already finished");
  try {
    if (::fsync(s.file.get()) != 0)
      fail(path, std::string("syncing the temporary file failed: ") + std::strerror(errno));
    if (s.file.close() != 0)
      fail(path, std::string("closing the temporary file failed: ") + std::strerror(errno));
    check_target(s.target, s.folder.get(), s.options);  // again: it may have changed meanwhile
    if (::renameat(s.folder.get(), s.temporary.c_str(), s.folder.get(), s.target.name.c_str()) !=
        0)
      fail(path, std::string("renaming the temporary file to it failed: ") + std::strerror(errno));
  } catch (...) {
    abandon();
    throw;
  }
  s.open = false;
  interrupt::set_temporary_file(nullptr);
  ::fsync(s.folder.get());  // best effort: the rename is already visible
  return s.report;
}

}  // namespace gpucap
