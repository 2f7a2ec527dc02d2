// Growing logs (PATH.partial): created exclusively, never through something planted at the predictable
// name, and never shared by two writers (issue 26, items 3 and 4).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "file_checks.hpp"
#include "sim/error.hpp"
#include "sim/platform/partial_file.hpp"

namespace nbody {
namespace {

namespace fs = std::filesystem;

using PartialFileTest = test::FilesTest;  // as test_atomic_file's (file_checks.hpp)
using test::error_of;
using test::slurp;

TEST_F(PartialFileTest, GrowsVisiblyAndIsRenamedOnCommit) {
    const std::string log = file("e.csv");
    {
        PartialFile f(log);
        f.stream() << "row 1\n";
        f.end_record();
        EXPECT_EQ(slurp(log + ".partial"), "row 1\n");
        f.commit();
    }
    EXPECT_EQ(slurp(log), "row 1\n");
    EXPECT_FALSE(fs::exists(log + ".partial"));
}

TEST_F(PartialFileTest, APlantedSymbolicLinkIsNeverFollowed) {
    // It used to be: the victim got the log and e.csv became a link to it.
    const std::string victim = file("victim.txt"), log = file("e.csv");
    std::ofstream(victim) << "precious";
    fs::create_symlink(victim, log + ".partial");
    const std::string err = error_of([&] { PartialFile f(log); });
    EXPECT_NE(err.find("symbolic link"), std::string::npos) << err;
    EXPECT_EQ(slurp(victim), "precious");
    EXPECT_TRUE(fs::is_symlink(log + ".partial"));  // left for the user to look at
    EXPECT_FALSE(fs::exists(log));
}

TEST_F(PartialFileTest, AFifoOrSocketAtThePartialNameIsRefusedWithoutOpeningIt) {
    // A FIFO used to hang the run forever (opening it for writing waits for a reader).
    const std::string fifo_log = file("f.csv");
    ASSERT_EQ(::mkfifo((fifo_log + ".partial").c_str(), 0600), 0);
    const std::string err = error_of([&] { PartialFile f(fifo_log); });
    EXPECT_NE(err.find("a FIFO"), std::string::npos) << err;

    const std::string dir_log = file("d.csv");
    fs::create_directory(dir_log + ".partial");
    EXPECT_NE(error_of([&] { PartialFile f(dir_log); }).find("a directory"), std::string::npos);

    const std::string sock_log = file("s.csv");
    const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const std::string sock_path = sock_log + ".partial";
    ASSERT_LT(sock_path.size(), sizeof addr.sun_path);
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock_path.c_str());
    ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_NE(error_of([&] { PartialFile f(sock_log); }).find("a socket"), std::string::npos);
    ::close(sock);
    EXPECT_TRUE(fs::is_fifo(fifo_log + ".partial"));
}

TEST_F(PartialFileTest, ASecondWriterOfTheSameLogIsRefused) {
    // Two runs sharing --energy-log used to write one e.csv.partial together (rows of both, NUL bytes).
    const std::string log = file("e.csv");
    PartialFile first(log);
    first.stream() << "first's row\n";
    first.end_record();
    const std::string err = error_of([&] { PartialFile second(log); });
    EXPECT_NE(err.find("another nbody run is writing it"), std::string::npos) << err;
    EXPECT_EQ(slurp(log + ".partial"), "first's row\n");  // the refused one neither truncated nor removed it
    first.commit();
    EXPECT_EQ(slurp(log), "first's row\n");

    // Once the first is done, the name is free again.
    PartialFile third(log);
    third.stream() << "third's row\n";
    third.commit();
    EXPECT_EQ(slurp(log), "third's row\n");
}

TEST_F(PartialFileTest, ALeftoverPlainFileIsTakenOverFromTheStart) {
    // Kept after a blow-up, or left by a killed run: nobody holds it, so the next run starts it afresh.
    const std::string log = file("e.csv");
    std::ofstream(log + ".partial") << "an old run's rows, longer than the new ones\n";
    PartialFile f(log);
    f.stream() << "new\n";
    f.commit();
    EXPECT_EQ(slurp(log), "new\n");
}

TEST_F(PartialFileTest, AKeptLogStaysAndIsFreeForTheNextRun) {
    const std::string log = file("e.csv");
    {
        PartialFile f(log);
        f.stream() << "up to the blow-up\n";
        f.end_record();
        f.keep();
    }
    EXPECT_EQ(slurp(log + ".partial"), "up to the blow-up\n");
    PartialFile next(log);  // not refused as "another run is writing it"
    next.stream() << "again\n";
    next.commit();
    EXPECT_EQ(slurp(log), "again\n");
}

}  // namespace
}  // namespace nbody
