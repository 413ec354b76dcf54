-- wrk's requests for the sync server (`server-bench hold …`): each a sync document of one head,
-- later than the last of its device in every register, cycling over the users' tokens.
--   wrk -t2 -c16 -d10s -s Benchmarks/wrk-writes.lua http://127.0.0.1:PORT/v1/registers -- TOKENS_FILE
-- TOKENS_FILE holds one bearer token per line. Thread i numbers its writes i, i + threads,
-- i + 2 × threads, …, so the threads' sequence numbers interleave and nearly every write is a
-- device's newest.
local threads = 0
function setup(thread)
  thread:set("index", threads)
  threads = threads + 1
end

local tokens = {}
local index, stride, count = 0, 1, 0
function init(args)
  for line in io.lines(args[1]) do
    if #line > 0 then tokens[#tokens + 1] = line end
  end
  index = tonumber(wrk.thread:get("index"))
  stride = threads > 0 and threads or 2
end

function request()
  count = count + 1
  local n = count * stride + index
  local device = n % 4
  local hlc = string.format("%016x", (1790000000000 + n) * 65536)
  local body = string.format(
    '{"format":"timeline-sync","version":2,"device":"d%d","records":[{"account":"me","timeline":"t%d","hlc":"%s","device":"d%d","seq":%d,'
      .. '"context":{},"savedAt":"2026-11-24T00:00:00Z","epoch":{"hlc":"0000000000000000","device":""},'
      .. '"progress":{"createdAt":%d,"postId":"p%d"},"position":{"postId":"p%d","viewportY":-12,"contentOffset":4000}}]}',
    device, n % 5, hlc, device, n, n, n, n)
  local headers = {["Authorization"] = "Bearer " .. tokens[(count % #tokens) + 1], ["Content-Type"] = "application/json"}
  return wrk.format("POST", nil, headers, body)
end
