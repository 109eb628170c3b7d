-- <img src=x onerror=alert(1)> in a comment, as a capture could carry it
local t = {} -- </pre><script>document.title="pwned"</script>
return t
