package blog

import org.springframework.jdbc.core.simple.JdbcClient
import org.springframework.stereotype.Repository
import org.springframework.stereotype.Service

data class Article(val id: Long, val title: String, val slug: String)

@Repository
class ArticleRepository(private val jdbc: JdbcClient) {
    fun findAll(): List<Article> =
        jdbc.sql("select id, title, slug from article order by id")
            .query { rs, _ -> Article(rs.getLong("id"), rs.getString("title"), rs.getString("slug")) }
            .list()

    fun add(title: String): Article {
        jdbc.sql("insert into article(title, slug) values (?, ?)").params(title, title.toSlug()).update()
        return findAll().last()
    }
}

@Service
class BlogService(private val articles: ArticleRepository, private val properties: BlogProperties) {
    fun headline(): String = "${properties.title}: ${articles.findAll().joinToString { it.title }}"
}

fun String.toSlug() = lowercase().replace("\n", " ").replace(Regex("[^a-z\\d\\s]"), " ").split(" ")
    .filter { it.isNotEmpty() }.joinToString("-")
