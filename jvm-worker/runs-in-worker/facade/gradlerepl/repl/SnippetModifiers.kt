package gradlerepl.repl

import org.jetbrains.kotlin.com.intellij.psi.tree.IElementType
import org.jetbrains.kotlin.lexer.KotlinLexer
import org.jetbrains.kotlin.lexer.KtTokens

/**
 * The snippet's code with the modifiers the K2 REPL mishandles blanked to spaces, so that every line and column the
 * compiler reports stays the user's:
 *
 * - `internal` compiles as `public`. In a REPL every snippet is one module to its user, but the K2 REPL compiles each
 *   snippet as a module of its own and mangles an internal member's JVM name with it (`getV$_6_repl_kts`), while a
 *   later snippet calls it by the default module name (`getV$main`: the JVM backend's
 *   `MethodSignatureMapper.getModuleNameForClassMember` finds no module name for an earlier snippet's class):
 *   NoSuchMethodError on 2.2 and 2.3. Kotlin 2.2's REPL also crashes (`Fir2IrVisitor.visitSimpleFunction`) on a
 *   top-level `internal fun` and refuses a top-level `internal val` as a local. Public is what `internal` means
 *   across one module's snippets.
 * - `const val` compiles as `val`. Kotlin 2.2's and 2.3's backends crash on a later snippet that reads an earlier
 *   snippet's constant (top-level or in an object) in a function, class or object: the constant evaluator calls the
 *   earlier snippet's getter ("Error occurred while optimizing an expression"); 2.2's REPL also refuses a top-level
 *   one as a local. What a `val` can't be is an annotation's argument or a `when` branch's constant.
 *
 * Kotlin's own lexer finds them, so the words in a string or a comment, or as names (`val internal = 1`), stay as
 * written: `internal` is the modifier when a declaration keyword, another modifier, an accessor or an annotation
 * follows it; `const` when `val` follows it.
 */
fun withReplSafeModifiers(code: String): String {
    if (!code.contains(INTERNAL) && !code.contains(CONST)) return code
    val lexer = KotlinLexer()
    lexer.start(code)
    val chars = code.toCharArray()
    // The word before the current token, when it may be a modifier that the current token decides.
    var pending: String? = null
    var pendingAt = -1
    while (lexer.tokenType != null) {
        val type = lexer.tokenType!!
        val text = lexer.tokenText
        if (type != KtTokens.WHITE_SPACE && type !in KtTokens.COMMENTS) {
            val blank = when (pending) {
                INTERNAL -> startsDeclaration(type, text)
                CONST -> type == KtTokens.VAL_KEYWORD
                else -> false
            }
            if (blank) for (i in pendingAt until pendingAt + pending!!.length) chars[i] = ' '
            pending = text.takeIf { type == KtTokens.IDENTIFIER && (it == INTERNAL || it == CONST) }
            pendingAt = lexer.tokenStart
        }
        lexer.advance()
    }
    return String(chars)
}

private const val INTERNAL = "internal"
private const val CONST = "const"

private val DECLARATION_KEYWORDS = setOf<IElementType>(
    KtTokens.FUN_KEYWORD, KtTokens.VAL_KEYWORD, KtTokens.VAR_KEYWORD, KtTokens.CLASS_KEYWORD, KtTokens.OBJECT_KEYWORD,
    KtTokens.INTERFACE_KEYWORD, KtTokens.TYPE_ALIAS_KEYWORD,
)

// Modifiers (soft keywords, which the lexer reads as identifiers), a constructor and property accessors.
private val FOLLOWING_WORDS = KtTokens.MODIFIER_KEYWORDS_ARRAY.map { it.value }.toSet() + setOf("constructor", "get", "set")

private fun startsDeclaration(type: IElementType, text: String): Boolean =
    type in DECLARATION_KEYWORDS || type == KtTokens.AT || (type == KtTokens.IDENTIFIER && text in FOLLOWING_WORDS)
