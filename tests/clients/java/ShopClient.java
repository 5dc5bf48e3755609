// A Java shop calling the gateway with java.net.http.HttpClient in its default settings (HTTP/2 preferred:
// on plain http it asks for an `Upgrade: h2c`) and reading bodies as Jackson does, as UTF-8 bytes whatever
// the Content-Type says. Java has no JSON parser built in, so a minimal one stands in for Jackson below.
// Runs tests/clients/scenario.py's steps and prints the result as JSON (ASCII).
//
//   java ShopClient.java http://127.0.0.1:8000 shop a-long-secret
//
// Non-ASCII text is written as Unicode escapes: Java 17 reads a source file in the platform encoding.

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public class ShopClient {
    static final String FIRST_NAME = "Zo\u00eb";
    static final String LAST_NAME = "M\u00fcller-L\u00fcdenscheidt";
    static final String STREET = "L\u00f6wenstrasse 12";
    static final String PLACE = "Z\u00fcrich";
    static final String COMMENT = "Lieferung bitte \ud83d\ude9a \u2014 12 \u20ac Trinkgeld";

    static final HttpClient CLIENT = HttpClient.newHttpClient();
    static final Map<String, Object> RESULT = new LinkedHashMap<>();
    static final List<Object> RESPONSES = new ArrayList<>();

    public static void main(String[] args) {
        String baseUrl = args[0], user = args[1], secret = args[2];
        RESULT.put("responses", RESPONSES);
        int exitCode = 0;
        try {
            String basic = Base64.getEncoder().encodeToString((user + ":" + secret).getBytes(StandardCharsets.UTF_8));
            Map<?, ?> token = (Map<?, ?>) call("POST /www/token", 200, HttpRequest.newBuilder(URI.create(baseUrl + "/www/token"))
                    .header("Authorization", "Basic " + basic).POST(HttpRequest.BodyPublishers.noBody()));
            RESULT.put("token_type", token.get("token_type"));
            String bearer = "Bearer " + token.get("access_token");

            List<Object> articles = new ArrayList<>();
            for (Object article : (List<?>) get("GET /www/artikel?limit=5", baseUrl + "/www/artikel?limit=5", bearer).get("data")) {
                articles.add(Arrays.asList(at(article, "ArtNr"), at(article, "ArtBez")));
            }
            RESULT.put("articles", articles);

            Map<String, Object> contactIn = new LinkedHashMap<>();
            contactIn.put("AdrSprache", "ger");
            contactIn.put("AdrAnrede", 2);
            contactIn.put("AdrVorname", FIRST_NAME);
            contactIn.put("AdrName", LAST_NAME);
            contactIn.put("AdrAdresse1", STREET);
            contactIn.put("OrtLand", "CH");
            contactIn.put("OrtName", PLACE);
            contactIn.put("OrtPLZ", "8001");
            Map<String, Object> customer = Map.of(
                    "GrundDaten", Map.of("WaehrAbk", "CHF", "FAKTZahlArt", "R"),
                    "Adressen", Map.of("KontaktAdr", contactIn));
            String debiNr = (String) at(post("POST /www/kunden", baseUrl + "/www/kunden", bearer, customer), "data", "DebiNr");
            Map<String, Object> order = Map.of(
                    "GrundDaten", Map.of("KundNr", debiNr, "AuftKomment", COMMENT),
                    "Positionen", List.of(Map.of("ArtNr", "A-000001", "Menge", 2)));
            String auftNr = (String) at(post("POST /www/auftrag", baseUrl + "/www/auftrag", bearer, order), "data", "AuftNr");
            RESULT.put("DebiNr", debiNr);
            RESULT.put("AuftNr", auftNr);

            RESULT.put("KundBez", at(get("GET /www/kunden/{DebiNr}", baseUrl + "/www/kunden/" + debiNr, bearer), "data", "KundBez"));
            Object contact = at(get("GET /www/adressen?debinr={DebiNr}", baseUrl + "/www/adressen?debinr=" + debiNr, bearer), "data", "KundKontakt", 0);
            RESULT.put("KundKontakt", pick(contact, "AdrVorname", "AdrName", "AdrAdresse1", "OrtName", "OrtPLZ", "OrtLand"));
            Object auftrag = get("GET /www/auftrag/{AuftNr}", baseUrl + "/www/auftrag/" + auftNr, bearer).get("data");
            Object address = at(auftrag, "Adressen", "KontaktAdr");
            Map<String, Object> orderOut = new LinkedHashMap<>();
            orderOut.put("KundNr", at(auftrag, "GrundDaten", "KundNr"));
            orderOut.put("AuftKomment", at(auftrag, "GrundDaten", "AuftKomment"));
            orderOut.put("KontaktAdr", pick(address, "AdrVorname", "AdrName", "OrtName"));
            orderOut.put("PosBez", at(auftrag, "Positionen", 0, "PosBez"));
            RESULT.put("order", orderOut);

            // What was sent must come back character for character (String.equals compares UTF-16 code units).
            Object[][] sentAndRead = {
                {"AdrVorname", FIRST_NAME, at(contact, "AdrVorname")},
                {"AdrName", LAST_NAME, at(contact, "AdrName")},
                {"AdrAdresse1", STREET, at(contact, "AdrAdresse1")},
                {"OrtName", PLACE, at(contact, "OrtName")},
                {"AuftKomment", COMMENT, at(auftrag, "GrundDaten", "AuftKomment")},
                {"KontaktAdr.AdrVorname", FIRST_NAME, at(address, "AdrVorname")},
                {"KontaktAdr.AdrName", LAST_NAME, at(address, "AdrName")},
                {"KontaktAdr.OrtName", PLACE, at(address, "OrtName")},
            };
            List<Object> mismatches = new ArrayList<>();
            for (Object[] check : sentAndRead) {
                if (!check[1].equals(check[2])) mismatches.add(Arrays.asList(check));
            }
            RESULT.put("mismatches", mismatches);
        } catch (Exception error) {
            RESULT.put("error", error.toString());
            exitCode = 1;
        }
        System.out.println(Json.write(RESULT, true));
        System.exit(exitCode);
    }

    static Map<?, ?> get(String label, String url, String bearer) throws Exception {
        return (Map<?, ?>) call(label, 200, HttpRequest.newBuilder(URI.create(url)).header("Authorization", bearer).GET());
    }

    static Map<?, ?> post(String label, String url, String bearer, Object body) throws Exception {
        return (Map<?, ?>) call(label, 201, HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", bearer)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(body, false))));  // UTF-8
    }

    static Object call(String label, int expected, HttpRequest.Builder request) throws Exception {
        HttpResponse<byte[]> response = CLIENT.send(request.timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        RESPONSES.add(List.of(label, response.statusCode(), response.headers().firstValue("Content-Type").orElse("")));
        String text;
        try {
            // Jackson reads JSON bytes as UTF-8 and fails on malformed sequences; so does this decoder.
            text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(response.body())).toString();
        } catch (CharacterCodingException error) {
            throw new IllegalStateException(label + ": the body is not UTF-8: " + error);
        }
        Object data = Json.parse(text);
        if (response.statusCode() != expected) throw new IllegalStateException(label + ": " + response.statusCode() + " " + text);
        return data;
    }

    static Object at(Object value, Object... path) {
        for (Object key : path) {
            value = key instanceof Integer index ? ((List<?>) value).get(index) : ((Map<?, ?>) value).get(key);
        }
        return value;
    }

    static Map<String, Object> pick(Object record, String... names) {
        Map<String, Object> picked = new LinkedHashMap<>();
        for (String name : names) picked.put(name, at(record, name));
        return picked;
    }

    /** Just enough JSON: objects, arrays, strings with every escape, numbers, true, false, null. */
    static final class Json {
        private final String text;
        private int pos;

        private Json(String text) {
            this.text = text;
        }

        static Object parse(String text) {
            Json json = new Json(text);
            Object value = json.value();
            json.space();
            if (json.pos != text.length()) throw json.error("trailing characters");
            return value;
        }

        private Object value() {
            space();
            if (pos >= text.length()) throw error("unexpected end");
            char c = text.charAt(pos);
            switch (c) {
                case '{' -> {
                    Map<String, Object> object = new LinkedHashMap<>();
                    pos++;
                    space();
                    if (text.charAt(pos) == '}') { pos++; return object; }
                    do {
                        space();
                        String key = string();
                        space();
                        expect(':');
                        object.put(key, value());
                        space();
                    } while (text.charAt(pos++) == ',');
                    if (text.charAt(pos - 1) != '}') throw error("expected , or }");
                    return object;
                }
                case '[' -> {
                    List<Object> array = new ArrayList<>();
                    pos++;
                    space();
                    if (text.charAt(pos) == ']') { pos++; return array; }
                    do {
                        array.add(value());
                        space();
                    } while (text.charAt(pos++) == ',');
                    if (text.charAt(pos - 1) != ']') throw error("expected , or ]");
                    return array;
                }
                case '"' -> { return string(); }
                case 't' -> { literal("true"); return Boolean.TRUE; }
                case 'f' -> { literal("false"); return Boolean.FALSE; }
                case 'n' -> { literal("null"); return null; }
                default -> { return number(); }
            }
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (true) {
                char c = text.charAt(pos++);
                if (c == '"') return out.toString();
                if (c < 0x20) throw error("control character in a string");
                if (c != '\\') { out.append(c); continue; }
                char escape = text.charAt(pos++);
                switch (escape) {
                    // Each escape is one UTF-16 unit: the two escapes of a surrogate pair make one character.
                    case 'u' -> { out.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16)); pos += 4; }
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case '"', '\\', '/' -> out.append(escape);
                    default -> throw error("bad escape \\" + escape);
                }
            }
        }

        private Object number() {
            int start = pos;
            while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0) pos++;
            String number = text.substring(start, pos);
            if (number.isEmpty()) throw error("unexpected character");
            return number.matches("-?\\d+") ? (Object) Long.valueOf(number) : (Object) Double.valueOf(number);
        }

        private void literal(String word) {
            if (!text.startsWith(word, pos)) throw error("expected " + word);
            pos += word.length();
        }

        private void expect(char c) {
            if (pos >= text.length() || text.charAt(pos) != c) throw error("expected " + c);
            pos++;
        }

        private void space() {
            while (pos < text.length() && " \t\r\n".indexOf(text.charAt(pos)) >= 0) pos++;
        }

        private IllegalArgumentException error(String message) {
            return new IllegalArgumentException("JSON: " + message + " at " + pos);
        }

        /** JSON text; with ascii, every character above U+007E as a \\u escape (surrogate pairs beyond the BMP). */
        static String write(Object value, boolean ascii) {
            StringBuilder out = new StringBuilder();
            write(value, ascii, out);
            return out.toString();
        }

        private static void write(Object value, boolean ascii, StringBuilder out) {
            if (value instanceof String s) {
                out.append('"');
                for (char c : s.toCharArray()) {
                    if (c == '"' || c == '\\') out.append('\\').append(c);
                    else if (c < 0x20 || (ascii && c > 0x7e)) out.append(String.format("\\u%04x", (int) c));
                    else out.append(c);
                }
                out.append('"');
            } else if (value instanceof Map<?, ?> map) {
                out.append('{');
                String separator = "";
                for (Map.Entry<?, ?> entry : map.entrySet()) {
                    out.append(separator);
                    write(String.valueOf(entry.getKey()), ascii, out);
                    out.append(':');
                    write(entry.getValue(), ascii, out);
                    separator = ",";
                }
                out.append('}');
            } else if (value instanceof List<?> list) {
                out.append('[');
                String separator = "";
                for (Object item : list) {
                    out.append(separator);
                    write(item, ascii, out);
                    separator = ",";
                }
                out.append(']');
            } else {
                out.append(value);  // numbers, booleans, null
            }
        }
    }
}
