/** A file's diff with two hunks (a line replaced by two, then one replaced), for the line-choosing tests. */
export function twoHunkDiff(path: string): string {
  return `diff --git a/${path} b/${path}
--- a/${path}
+++ b/${path}
@@ -1,4 +1,5 @@
 one
-two
+TWO
+two and a half
 three
@@ -10,3 +11,3 @@
 ten
-eleven
+ELEVEN
 twelve
`;
}
