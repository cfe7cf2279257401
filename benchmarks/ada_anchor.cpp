// The native anchor: ada's own C++ parser (built from the ada-url sdist at bench time, never
// vendored) parsing each URL of a file and reading its href, on one thread, no Python.
// Prints the best of N passes (the second argument) in ns/URL and how many rows parsed.
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "ada.h"

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    const int passes = std::atoi(argv[2]);
    std::ifstream in(argv[1], std::ios::binary);
    std::vector<std::string> urls;
    for (std::string line; std::getline(in, line);) urls.push_back(line);
    double best = 1e300;
    size_t ok = 0, bytes = 0;
    for (int pass = 0; pass < passes; pass++) {
        ok = bytes = 0;
        auto start = std::chrono::steady_clock::now();
        for (const auto &u : urls) {
            auto url = ada::parse<ada::url_aggregator>(u);
            if (url) {
                ok++;
                bytes += url->get_href().size();
            }
        }
        std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;
        if (took.count() < best) best = took.count();
    }
    std::printf("%.1f %zu %zu\n", best / (double)urls.size(), ok, bytes);
    return 0;
}
