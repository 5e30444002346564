// bitcoin-cli: everything but main() is in rpc/cli.cpp, so tests can run it.

#include <rpc/cli.h>

#include <iostream>

int main(int argc, char* argv[])
{
    return RunBitcoinCli(argc, argv, std::cin, std::cout, std::cerr);
}
