-- GET requests for bench/conditional/main.py: the paths of PATHS in turn (each thread starting at its own place), with
-- the header AUTHORIZATION when it is set and If-None-Match: TAGS[i] with PATHS[i] when TAGS is set. main.py fills in
-- the globals (PATHS, TAGS, AUTHORIZATION) before the script; bench/common/wrk_result.lua, appended, counts the statuses
-- and prints the result.

function init(args)
   statuses = {}
   -- Formatted once: the requests cost wrk nothing per request but copying them.
   prepared = {}
   for i, path in ipairs(PATHS) do
      local headers = {}
      if AUTHORIZATION then
         headers["Authorization"] = AUTHORIZATION
      end
      if TAGS then
         headers["If-None-Match"] = TAGS[i]
      end
      prepared[i] = wrk.format("GET", path, headers)
   end
   counter = tid * 7919
end

function request()
   counter = counter + 1
   return prepared[counter % #prepared + 1]
end
