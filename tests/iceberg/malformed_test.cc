// Damaged copies of corpus tables: every failure is a clean error naming the file.
#include <gtest/gtest.h>

int placeholder_malformed = 0;
