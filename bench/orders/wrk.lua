-- POST /www/auftrag for bench/orders/main.py: every request a new order of a random demo customer with
-- POSITIONS random priced articles, its own AuftBestellNr and Idempotency-Key (as a shop sends them).
-- bench/orders/main.py fills in the globals below (TOKEN, PREFIX, CUSTOMERS, ARTICLES, POSITIONS) before
-- the script; bench/common/wrk_result.lua, appended, counts the statuses and prints the result.

local counter = 0

function init(args)
   math.randomseed(tid * 7919)
   statuses = {}
end

function request()
   counter = counter + 1
   local reference = string.format("%s%d-%d", PREFIX, tid, counter)
   local positions = {}
   for i = 1, POSITIONS do
      local article = ARTICLES[math.random(#ARTICLES)]
      positions[i] = string.format('{"ArtNr":"%s","Menge":%d}', article, math.random(1, 5))
   end
   local body = string.format(
      '{"GrundDaten":{"KundNr":"%s","AuftBestellNr":"%s"},"Positionen":[%s]}',
      CUSTOMERS[math.random(#CUSTOMERS)], reference, table.concat(positions, ",")
   )
   local headers = {
      ["Authorization"] = "Bearer " .. TOKEN,
      ["Content-Type"] = "application/json",
      ["Idempotency-Key"] = reference,
   }
   return wrk.format("POST", "/www/auftrag", headers, body)
end
