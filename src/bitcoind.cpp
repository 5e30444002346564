#include <node/init/init.h>

int main(int argc, char* argv[]) { return node::AppMain(argc, argv); }
