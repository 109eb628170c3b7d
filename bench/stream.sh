# bench/stream.sh: sourced by the bench scripts that read generated streams
# (dir: where they live, $BUILD/bench).
# stream NAME EVENTS YOUNG OLD: generates the stream if absent; prints its path.
stream() {
  file=$dir/$1-$2-$3-$4.bin
  if [ ! -s "$file" ] || [ ! -s "$file.info" ]; then
    echo "generating $file" >&2
    "$dir/gen_stream" --events "$2" --young "$3" --old "$4" "$file" > "$file.info.tmp"
    mv "$file.info.tmp" "$file.info"
  fi
  echo "$file"
}
