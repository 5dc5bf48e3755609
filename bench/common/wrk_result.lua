-- What every bench's wrk script shares (bench/common/wrk.py appends it to the bench's own script): each thread numbered
-- (tid) and kept, the statuses it was answered counted, and done() printing one line "RESULT {...}".

local threads = {}

function setup(thread)
   thread:set("tid", #threads + 1)
   table.insert(threads, thread)
end

function response(status, headers, body)
   local key = tostring(status)
   statuses[key] = (statuses[key] or 0) + 1
end

function done(summary, latency, requests)
   local counts = {}
   for _, thread in ipairs(threads) do
      for status, n in pairs(thread:get("statuses")) do
         counts[status] = (counts[status] or 0) + n
      end
   end
   local parts = {}
   for status, n in pairs(counts) do
      table.insert(parts, string.format('"%s":%d', status, n))
   end
   local errors = summary.errors
   io.write(string.format(
      'RESULT {"requests":%d,"seconds":%f,"p50_ms":%f,"p99_ms":%f,"max_ms":%f,"statuses":{%s},' ..
      '"socket_errors":%d}\n',
      summary.requests, summary.duration / 1e6, latency:percentile(50) / 1e3, latency:percentile(99) / 1e3,
      latency.max / 1e3, table.concat(parts, ","),
      errors.connect + errors.read + errors.write + errors.timeout
   ))
end
