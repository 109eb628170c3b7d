# container/build.mk: the generic containers every other stage may use (array growth, hash
# tables), below all of them: they include nothing of the project's but each other.
container_SRCS := container/index_table.c
